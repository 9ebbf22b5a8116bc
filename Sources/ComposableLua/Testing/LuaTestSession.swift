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
final class LuaTestSession: @unchecked Sendable {
  private let lock = NSLock()
  private let vm: LuaVM
  private let sandbox: LuaSandbox
  let directory: URL
  let fileName: String
  /// The collected tests: tables with `name`, `line`, `pending`, and the functions to run.
  let tests: [LuaValue]
  private let runner: LuaReference
  private let apply: LuaReference
  private let matches: LuaReference

  private var stores: [Int: LuaTestStore] = [:]
  let failures = LuaTestFailures()

  init(file: URL, displayName: String, output: @escaping (String) -> Void) throws {
    directory = file.deletingLastPathComponent()
    fileName = displayName
    guard let source = try? String(contentsOf: file, encoding: .utf8) else {
      throw LuaFeatureError.load(file: displayName, message: "the file cannot be read")
    }
    vm = try LuaVM()
    let library = try vm.evaluate(LuaLibrarySource.test, chunkName: "=composable.test")
    guard case let .function(install) = library[0], case let .function(runner) = library[1],
      case let .function(apply) = library[3],
      case let .function(matches) = library[4]
    else { throw LuaFeatureError.load(file: displayName, message: "the test library failed to load") }
    self.runner = runner
    self.apply = apply
    self.matches = matches
    let testModule = LuaModuleTable(["composable.test": "return __composable_test"])
    sandbox = try vm.makeSandbox(.init(
      print: output,
      modules: LuaModuleChain(
        resolvers: [builtInModules, testModule, LuaModuleDirectories([directory])]),
      preloaded: builtInPreloads(in: vm)))
    try vm.call(install, arguments: [.reference(sandbox.environment)])
    try vm.call(vm.load(source, chunkName: displayName, in: sandbox))
    tests = try vm.evaluate("return __composable_tests", chunkName: "=tests", in: sandbox)
      .first?.tableValue?.sequence ?? []
  }

  private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }

  // MARK: Running a test

  /// Runs test `index` to the end; returns its failures as `file:line: message`.
  func runTest(_ index: Int) async -> [String] {
    let test = tests[index]
    let coroutine: LuaReference
    do { coroutine = try locked { try vm.makeCoroutine(runner) } } catch {
      return ["\(fileName): \(error)"]
    }
    var arguments: [LuaValue] = [test]
    var site = (file: fileName, line: test.line.intValue ?? 0)
    while true {
      let resumption: LuaResumption
      do { resumption = try locked { try vm.resume(coroutine, with: arguments) } } catch {
        failures.add("\(error)", at: site)
        break
      }
      switch resumption {
      case let .returned(values):
        if let failure = values.first, failure != .nil { failures.add(describeFailure(failure), at: nil) }
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
          arguments = [try await LuaTestFailures.$effectSite.withValue(site) {
            try await withIssueReporters([failures]) { try await serve(request) }
          }]
        } catch {
          failures.add("\(error)", at: site)
          arguments = [.nil]
        }
      }
    }
    await endStores()
    return failures.all
  }

  private func describeFailure(_ failure: LuaValue) -> String {
    let message = failure.message.stringValue ?? failure.description
    if let file = failure.file.stringValue, let line = failure.line.intValue {
      return "\(file):\(line): \(message)"
    }
    if let traceback = failure.traceback.stringValue {
      return message + "\n" + traceback
    }
    return message
  }

  /// The end of a test: each store checks, as a Swift TestStore does when it goes, that no
  /// action was left unreceived and no effect still runs.
  private func endStores() async {
    // Effects that just sent their last action finish first; what still runs after is reported.
    await SingleThreadExecutor.letWorkRun()
    for id in stores.keys.sorted() {
      guard let store = stores.removeValue(forKey: id) else { continue }
      failures.site = store.lastSite
      withIssueReporters([failures]) { store.end() }
    }
  }

  // MARK: Serving requests

  private func serve(_ request: LuaValue) async throws -> LuaValue {
    let op = request.op.stringValue ?? ""
    if op == "new" { return try await makeStore(request.spec) }
    guard let id = request.store.intValue, let store = stores[id] else {
      throw LuaTestError("\(op): not a TestStore made by TestStore.new")
    }
    store.lastSite = failures.site
    switch op {
    case "send":
      let update = request.update
      await store.store.send(request.action, assert: try updater(update))
      return .nil
    case "receive":
      let update = try updater(request.update)
      switch request.match {
      case let .string(type):
        await store.store.receive(
          where: { $0.type.stringValue == type.description }, timeout: nil, assert: update)
      case .table:
        let expected = (try? LuaAction.normalize(request.match)) ?? request.match
        await store.store.receive(expected, assert: update)
      case let .function(predicate):
        await store.store.receive(where: { [self] action in
          (try? locked { try vm.call(matches, .function(predicate), action) })?.first == true
        }, assert: update)
      default:
        throw LuaTestError("receive: expected an action type, an action table or a function, got \(request.match.typeName)")
      }
      return .nil
    case "advance":
      guard let duration = request.seconds.doubleValue.flatMap(Seconds.duration) else {
        throw LuaTestError(
          "advance: expected \(Seconds.expected), got \(LuaEffectRunner.describe(request.seconds))")
      }
      await store.clock.advance(by: duration)
      return .nil
    case "finish":
      await store.store.finish()
      return .nil
    case "skip_received_actions":
      await store.store.skipReceivedActions()
      return .nil
    case "skip_in_flight_effects":
      await store.store.skipInFlightEffects()
      return .nil
    case "state":
      return store.store.state
    default:
      throw LuaTestError("unknown TestStore request \(LuaValue(op))")
    }
  }

  /// The test's `function(s) ... end` as the TestStore's `assert` closure.
  private func updater(_ value: LuaValue) throws -> ((inout LuaValue) throws -> Void)? {
    switch value {
    case .nil: return nil
    case let .function(update):
      return { [self] state in
        state = try locked { try vm.call(apply, .function(update), state).first ?? .nil }
      }
    default:
      throw LuaTestError("expected a function(state) to describe the expected state, got \(value.typeName)")
    }
  }

  private func makeStore(_ spec: LuaValue) async throws -> LuaValue {
    guard let name = spec.feature.stringValue else { throw LuaTestError("TestStore.new: feature is missing") }
    guard let url = LuaModuleDirectories([directory]).fileURL(ofModule: name) else {
      throw LuaTestError("TestStore.new: no module \(LuaValue(name)) beside \(fileName)")
    }
    // Careful: a bare `nil` here would be `LuaValue.nil`, which is a state, not its absence.
    let state: LuaValue? = spec.state == .nil ? Optional<LuaValue>.none : spec.state
    let feature = try LuaFeature(contentsOf: url, state: state, env: spec.env == .nil ? [:] : spec.env)
    let clock = ManualClock()
    var dependencies = DependencyValues.test
    dependencies.clock = clock
    dependencies.http = try httpClient(spec.http, clock: clock)
    dependencies.files = try fileClient(spec.files)
    // A feature that persists starts from what its files hold, as it does in the host.
    if feature.persistence != nil, spec.files != .nil {
      try await feature.restorePersisted(files: dependencies.files)
    }
    if let uuid = try uuidGenerator(spec.uuid) { dependencies.uuid = uuid }
    if let now = spec.now.doubleValue { dependencies.date = .constant(Date(timeIntervalSince1970: now)) }
    let store = TestStore(
      initialState: try feature.state(),
      reducer: { _ in LuaFeatureReducer<LuaValue>(feature: feature, dependencies: dependencies) })
    store.hints = .lua
    if spec.exhaustive == false { store.exhaustivity = .off }
    let id = (stores.keys.max() ?? 0) + 1
    stores[id] = LuaTestStore(store: store, clock: clock, lastSite: failures.site)
    return .integer(id)
  }

  /// `http = function(request) return { status = 200, body = "..." } end`; `json = {...}`
  /// instead of `body` sends JSON, and `delay = seconds` answers after that long on the
  /// store's test clock (a request in flight, for tests of cancellation).
  private func httpClient(_ value: LuaValue, clock: ManualClock) throws -> HTTPClient {
    switch value {
    case .nil:
      return HTTPClient { request in
        reportIssue(
          """
          A test used "http" without providing it: \(request.method) \(request.url)

          To fix, give the TestStore an http function: \
          TestStore.new{ ..., http = function(request) return { status = 200, body = "..." } end }
          """)
        throw HTTPClientError("http is not provided in this test")
      }
    case let .function(answer):
      return HTTPClient { [self] request in
        var table = LuaTable()
        table["method"] = .string(LuaString(request.method))
        table["url"] = .string(LuaString(request.url))
        table["body"] = .string(LuaString(bytes: request.body ?? []))
        let reply = try locked { try vm.call(answer, .table(table)).first ?? .nil }
        guard let status = reply.status.intValue else {
          throw HTTPClientError("the test's http function must return { status = ..., body = ... }")
        }
        var headers: [String: String] = [:]
        for (key, value) in reply.headers.tableValue?.entries ?? [:] {
          if let name = key.stringValue, let text = value.stringValue { headers[name] = text }
        }
        var body = reply.body.stringValue.map { Array($0.utf8) } ?? []
        if reply.json != .nil {
          body = Array(try JSONEncoder.sortedKeys().encode(reply.json))
          headers["Content-Type"] = headers["Content-Type"] ?? "application/json"
        }
        if reply.delay != .nil {
          guard let delay = reply.delay.doubleValue.flatMap(Seconds.duration) else {
            throw LuaTestError(
              "http: delay: expected \(Seconds.expected), got "
                + LuaEffectRunner.describe(reply.delay))
          }
          try await clock.sleep(for: delay)
        }
        return HTTPResponse(status: status, headers: headers, body: body)
      }
    default:
      throw LuaTestError("TestStore.new: http must be a function(request), got \(value.typeName)")
    }
  }

  /// `files = "fixtures/todos"` (a copy, so the fixture is never changed) or
  /// `files = { ["todos.saved.lua"] = "..." }`.
  private func fileClient(_ value: LuaValue) throws -> FileClient {
    switch value {
    case .nil:
      return FileClient.failing("files are not provided in this test") { operation, path in
        reportIssue(
          """
          A test used "files" without providing it: \(operation) \(path)

          To fix, give the TestStore files: TestStore.new{ ..., files = "fixtures/dir" } \
          (a copy of a directory beside the test) or files = { ["name.txt"] = "contents" }
          """)
      }
    case let .string(path):
      let fixture = directory.appendingPathComponent(path.description)
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: fixture.path, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw LuaTestError("TestStore.new: files: no fixture directory \(fixture.path)")
      }
      let copy = FileManager.default.temporaryDirectory.appendingPathComponent("lua-test-\(UUID().uuidString)")
      try FileManager.default.copyItem(at: fixture, to: copy)
      return .live(root: copy)
    case let .table(table):
      var files: [String: String] = [:]
      for (key, value) in table.entries {
        guard let name = key.stringValue, let text = value.stringValue else {
          throw LuaTestError("TestStore.new: files must map names to contents")
        }
        files[name] = text
      }
      return .inMemory(files)
    case let .function(answer):
      // files = function(request) ... end, request = { operation, path, contents }: returns the
      // contents for read, names for list, a boolean for exists; raises to fail the operation.
      let call: @Sendable (String, String, [UInt8]?) async throws -> LuaValue = { [self] operation, path, contents in
        var request = LuaTable()
        request["operation"] = .string(LuaString(operation))
        request["path"] = .string(LuaString(path))
        if let contents { request["contents"] = .string(LuaString(bytes: contents)) }
        do {
          return try locked { try vm.call(answer, .table(request)).first ?? .nil }
        } catch let error as LuaError {
          throw FileClientError(error.message)
        }
      }
      return FileClient(
        read: { path in
          guard case let .string(text) = try await call("read", path, nil) else {
            throw FileClientError.notFound(path)
          }
          return text.bytes
        },
        write: { path, contents in _ = try await call("write", path, contents) },
        append: { path, contents in _ = try await call("append", path, contents) },
        list: { path in
          (try await call("list", path, nil).tableValue?.sequence ?? []).compactMap(\.stringValue)
        },
        remove: { path in _ = try await call("remove", path, nil) },
        exists: { path in try await call("exists", path, nil) == true })
    default:
      throw LuaTestError(
        "TestStore.new: files must be a fixture directory, a table or a function, got \(value.typeName)")
    }
  }

  private func uuidGenerator(_ value: LuaValue) throws -> UUIDGenerator? {
    switch value {
    case .nil: return nil
    case let .string(kind) where kind.description == "incrementing": return .incrementing
    default: throw LuaTestError("TestStore.new: uuid must be \"incrementing\", got \(value)")
    }
  }
}

/// A store of a Lua test, with its clock and the last place the test used it.
final class LuaTestStore {
  let store: TestStore<LuaValue, LuaValue>
  let clock: ManualClock
  var lastSite: (file: String, line: Int)

  init(store: TestStore<LuaValue, LuaValue>, clock: ManualClock, lastSite: (file: String, line: Int)) {
    self.store = store
    self.clock = clock
    self.lastSite = lastSite
  }

  /// What a Swift TestStore checks when it goes away.
  func end() { store.checkAtEnd() }
}

struct LuaTestError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Collects the issues a test's TestStores report, each at the Lua line that was in flight.
final class LuaTestFailures: IssueReporter, @unchecked Sendable {
  private let lock = NSLock()
  private var failures: [String] = []
  private var current: (file: String, line: Int) = ("?", 0)

  var site: (file: String, line: Int) {
    get { lock.withLock { current } }
    set { lock.withLock { current = newValue } }
  }

  var all: [String] { lock.withLock { failures } }

  /// The Lua call whose work is running: set around each call, inherited by the effects it
  /// starts.
  @TaskLocal static var effectSite: (file: String, line: Int)?

  func add(_ message: String, at site: (file: String, line: Int)?) {
    lock.withLock {
      if let site { failures.append("\(site.file):\(site.line): \(message)") } else { failures.append(message) }
    }
  }

  func reportIssue(
    _ message: @autoclosure () -> String?, severity: IssueSeverity, fileID: StaticString,
    filePath: StaticString, line: UInt, column: UInt
  ) {
    guard severity == .error else { return }
    add(message() ?? "Issue recorded", at: Self.effectSite ?? site)
  }

  func reportIssue(
    _ error: any Error, _ message: @autoclosure () -> String?, fileID: StaticString,
    filePath: StaticString, line: UInt, column: UInt
  ) {
    add(message().map { "\($0): \(error)" } ?? "\(error)", at: Self.effectSite ?? site)
  }

  func expectIssue(
    _ message: @autoclosure () -> String?, fileID: StaticString, filePath: StaticString,
    line: UInt, column: UInt
  ) {}
}
