import Composable
import Foundation
import IssueReporting
import LuaKit

/// One Lua test file loaded in a fresh VM, to run one of its tests.
///
/// The test runs as a coroutine; each `TestStore` call in it yields a request that the session
/// serves with a real Swift `TestStore` (the same semantics as Swift tests), then resumes the
/// test with the answer. Failures the TestStore reports are collected and attributed to the
/// Lua file and line of the call in flight.
///
/// The VM is reached through its `LuaVMQueue`, which the clients a test gives its stores (`http`,
/// `files`) capture. The session itself is not `Sendable`: it is made and used on the test
/// file's own thread (`SingleThreadExecutor`) and never leaves it.
final class LuaTestSession {
  let queue: LuaVMQueue<Void>
  let sandbox: LuaSandbox
  let directory: URL
  let fileName: String
  /// The collected tests: tables with `name`, `line`, `pending`, and the functions to run.
  let tests: [LuaValue]
  let runner: LuaReference
  let apply: LuaReference
  let matches: LuaReference

  var stores: [Int: LuaTestStore] = [:]
  /// The marks `expect_failure` gave and has not closed yet, innermost last: its second request
  /// must close the last one. Any mark up to the count was taken, and a forged request (the
  /// mark 0, from a test's own coroutine library) erased every failure recorded before it.
  var openMarks: [Int] = []
  /// When the running test's time limit ends: the test is stopped between its calls, and a
  /// call that could run long (an advance over a fast timer) stops there too.
  var deadline: ContinuousClock.Instant?
  /// The most timer wake-ups one `store:advance(seconds)` runs (`LuaTestRunner`'s).
  var maximumWakeUpsPerAdvance = LuaTestRunner.defaultMaximumWakeUpsPerAdvance
  let failures = LuaTestFailures()

  convenience init(file: URL, displayName: String, output: @escaping (String) -> Void) throws {
    let source: LuaString
    do { source = LuaString(bytes: try LuaSourceFile.bytes(of: file)) } catch {
      throw LuaFeatureError.load(file: displayName, message: "cannot read it: \(error.reason)")
    }
    try self.init(
      source: source, directory: file.deletingLastPathComponent(), displayName: displayName,
      output: output)
  }

  /// A test file's `source`, as if it were in `directory` (where `require` finds modules).
  init(
    source: LuaString, directory: URL, displayName: String, output: @escaping (String) -> Void
  ) throws {
    self.directory = directory
    fileName = displayName
    let vm = try LuaVM()
    let library = try vm.call(vm.load(LuaLibrarySource.test))
    guard case let .function(install) = library[0], case let .function(runner) = library[1],
      case let .function(apply) = library[3],
      case let .function(matches) = library[4]
    else {
      throw LuaFeatureError.load(file: displayName, message: "the test library failed to load")
    }
    self.runner = runner
    self.apply = apply
    self.matches = matches
    // The library's modules and the test module in one table: one list of what is allowed.
    var modules = builtInModules
    modules.modules["composable.test"] = LuaModuleSource(
      code: "return __composable_test", chunkName: "composable.test.lua")
    sandbox = try vm.makeSandbox(
      .init(
        print: output,
        modules: LuaModuleChain(
          resolvers: [
            modules, LuaModuleFiles(LuaModuleDirectories([directory]), namesChunksByPath: true),
          ]),
        preloaded: builtInPreloads(in: vm)))
    try vm.call(install, arguments: [.reference(sandbox.environment)])
    try vm.call(vm.load(source, chunkName: displayName, in: sandbox))
    tests =
      try vm.evaluate("return __composable_tests", chunkName: "=tests", in: sandbox)
      .first?.tableValue?.sequence ?? []
    queue = LuaVMQueue(vm: vm, context: ())
  }

  // MARK: Running a test

  /// Runs test `index` to the end; returns its failures as `file:line: message`.
  nonisolated(nonsending) func runTest(
    _ index: Int, timeLimit: Duration = .seconds(60)
  ) async -> [String] {
    guard tests.indices.contains(index) else {
      return ["\(fileName): no test \(index + 1) in this load of the file"]
    }
    let test = tests[index]
    let coroutine: LuaReference
    do { coroutine = try queue.access { vm, _ in try vm.makeCoroutine(runner) } } catch {
      return ["\(fileName): \(error)"]
    }
    // Each resume after a request begins with a token only the host and the runner hold: a
    // resume that lacks it (the test resuming the coroutine a request was made in) is not the
    // store's answer, and the runner fails the call.
    let token = LuaValue.string(LuaString(UUID().uuidString))
    var arguments: [LuaValue] = [test, token]
    var site = (file: fileName, line: test.line.intValue ?? 0)
    let deadline = ContinuousClock.now + timeLimit
    self.deadline = deadline
    while true {
      // Checked between the test's calls: each call is bounded by its budget, the test by this.
      if ContinuousClock.now > deadline {
        failures.add(
          "the test ran for more than \(timeLimit) (the time limit of a Lua test) and was "
            + "stopped here. To fix, end the loop that keeps calling the store, or give "
            + "LuaTestRunner a larger timeLimit", at: site)
        break
      }
      let resumption: LuaResumption
      do {
        resumption = try queue.access { vm, _ in try vm.resume(coroutine, with: arguments) }
      } catch {
        // What `TestStore.new{...}` was given could not cross to the host (a cycle): said in
        // its words, not by the request's inner name (`.spec.answers...`).
        if case let .conversion(path, message)? = error as? LuaError, path.hasPrefix(".spec.") {
          failures.add("TestStore.new: \(path.dropFirst(".spec.".count)): \(message)", at: site)
        } else {
          failures.add("\(error)", at: site)
        }
        break
      }
      switch resumption {
      case let .returned(values):
        if let failure = values.first, failure != .nil {
          failures.add(describeFailure(failure), at: nil)
        }
        await endStores()
        return failures.all
      case let .yielded(values):
        let request = values.first ?? .nil
        site = (request.file.stringValue ?? fileName, request.line.intValue ?? 0)
        failures.site = site
        do {
          // The site is also a task-local: effects started by this call inherit it, so an issue
          // an effect reports later lands on the call that started it, not on whatever call is
          // in flight by then.
          arguments = [
            token,
            try await LuaTestFailures.$effectSite.withValue(site) {
              try await withIssueReporters([failures]) { try await serve(request) }
            },
          ]
        } catch {
          failures.add("\(error)", at: site, expectable: true)
          arguments = [token, .nil]
        }
      }
    }
    await endStores()
    return failures.all
  }

  func describeFailure(_ failure: LuaValue) -> String {
    let message = failure.message.readableString ?? failure.description
    if let file = failure.file.stringValue, let line = failure.line.intValue {
      return "\(file):\(line): \(message)"
    }
    if let traceback = failure.traceback.readableString {
      return message + "\n" + traceback
    }
    return message
  }

  /// The end of a test: each store checks, as a Swift TestStore does when it goes, that no
  /// action was left unreceived and no effect still runs.
  nonisolated(nonsending) func endStores() async {
    // Effects that just sent their last action finish first; what still runs after is reported.
    await SingleThreadExecutor.letWorkRun()
    for id in stores.keys.sorted() {
      guard let store = stores.removeValue(forKey: id) else { continue }
      failures.site = store.lastSite
      withIssueReporters([failures]) { store.end() }
    }
  }
}
