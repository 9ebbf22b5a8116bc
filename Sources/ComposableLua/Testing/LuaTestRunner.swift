import Composable
import Foundation
import LuaKit

/// Runs Lua tests: `*_test.lua` files with busted-style `describe`/`it`, whose `TestStore`s are
/// the Swift TestStore underneath.
///
/// Each test runs in a fresh VM (the file is loaded again for it), so nothing leaks from one
/// test to the next. Failures read `file:line: message`, at the line of the test's call.
public struct LuaTestRunner: Sendable {
  /// How long one test may run, across all its calls (each call has its own instruction
  /// budget; a test that calls the store in a loop for ever would pass each check).
  public var timeLimit: Duration

  /// The most timer wake-ups one `store:advance(seconds)` runs before the test fails there:
  /// each leaves a received action behind until the test receives it, so a timer ticking a
  /// billion times within an advance would fill the memory before the time limit came.
  public var maximumWakeUpsPerAdvance: Int

  /// The default of `maximumWakeUpsPerAdvance`: a million.
  public static let defaultMaximumWakeUpsPerAdvance = 1_000_000

  /// A runner. It holds nothing but its limits, so one can be made wherever tests are run.
  ///
  /// ```swift
  /// let runner = LuaTestRunner()
  /// var results: [LuaTestResult] = []
  /// for file in runner.discover(["Tests/lua"]) {
  ///   results += await runner.run(file: file)
  /// }
  /// ```
  public init(
    timeLimit: Duration = .seconds(60),
    maximumWakeUpsPerAdvance: Int = LuaTestRunner.defaultMaximumWakeUpsPerAdvance
  ) {
    self.timeLimit = timeLimit
    self.maximumWakeUpsPerAdvance = maximumWakeUpsPerAdvance
  }

  /// The `*_test.lua` files under `paths` (files or directories), sorted, skipping `fixtures`.
  public func discover(_ paths: [String]) -> [URL] {
    var found: [URL] = []
    for path in paths {
      let url = URL(pathGiven: path)
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
        continue
      }
      if !isDirectory.boolValue {
        found.append(url)
        continue
      }
      // A folder given as a symlink is walked where it points (the walk does not follow the
      // link it starts at), and its files named under the link, as the path given names them.
      let root = url.resolvingSymlinksInPath()
      let rootPath = root.path.hasSuffix("/") ? root.path : root.path + "/"
      let enumerator = FileManager.default.enumerator(
        at: root, includingPropertiesForKeys: [.isDirectoryKey])
      while let file = enumerator?.nextObject() as? URL {
        if file.lastPathComponent == "fixtures" || file.lastPathComponent == ".build" {
          enumerator?.skipDescendants()
        } else if file.lastPathComponent.hasSuffix("_test.lua"),
          // A folder of that name is walked, not taken for a test file that failed to load.
          (try? file.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) != true
        {
          let path = file.path
          found.append(
            root == url || !path.hasPrefix(rootPath)
              ? file : url.appendingPathComponent(String(path.dropFirst(rootPath.count))))
        }
      }
    }
    return found.map(LuaTestPath.normalized).sorted { $0.path < $1.path }
  }

  /// Runs the tests of `file` whose names contain `filter` (all when nil).
  ///
  /// The tests run on a thread of their own (`SingleThreadExecutor`), with their stores and
  /// effects: a TestStore then waits for exactly the work its calls started, and no `await`
  /// pays for waking another thread. What a test prints is kept with its result (`output`),
  /// never written where a report goes.
  public func run(file: URL, filter: String? = nil) async -> [LuaTestResult] {
    // The file as the person can open it, in every message: the chunk is loaded by this name.
    let name = LuaTestPath.display(file)
    return await run(name: name, filter: filter) { output in
      try LuaTestSession(file: file, displayName: name, output: output)
    }
  }

  /// Runs the tests of `source`, a test file named `name` that is not on disk, as if it were
  /// in `directory`: a test checked before it is written (the REPL's `:test`).
  public func run(source: String, name: String, directory: URL) async -> [LuaTestResult] {
    let bytes = LuaString(source)
    return await run(name: name, filter: nil) { output in
      try LuaTestSession(source: bytes, directory: directory, displayName: name, output: output)
    }
  }

  private func run(
    name: String, filter: String?,
    load: @escaping @Sendable (@escaping (String) -> Void) throws -> LuaTestSession
  ) async -> [LuaTestResult] {
    let executor = SingleThreadExecutor()
    defer { executor.stop() }
    return await executor.run { await runOnThisThread(name: name, filter: filter, load: load) }
  }

  /// Each test runs in the file loaded again, found by its place in the list: a file whose
  /// list differs from one load to the next (tests declared in `pairs` order, say, which changes
  /// from VM to VM) would run another test under this one's name. Nil when test `index` is the
  /// same (name and line) in both loads; else why it is not.
  static func changedDeclaration(
    of index: Int, first: LuaTestSession, again: LuaTestSession
  ) -> String? {
    let before = first.tests[index]
    guard index < again.tests.count else {
      return "the file declared \(first.tests.count) tests, and \(again.tests.count) when "
        + "loaded again to run test \(index + 1). A test file must declare the same tests, in "
        + "the same order, every time it is loaded. To fix, do not make the list depend on pairs "
        + "order, the time or randomness (sort the keys first)"
    }
    let after = again.tests[index]
    guard before.name == after.name, before.line == after.line else {
      let was = before.name.readableString ?? "?", now = after.name.readableString ?? "?"
      return "test \(index + 1) was \(was.debugDescription) and is \(now.debugDescription) when "
        + "the file is loaded again to run it. A test file must declare the same tests, in the "
        + "same order, every time it is loaded. To fix, do not make the list depend on pairs "
        + "order, the time or randomness (sort the keys first)"
    }
    return nil
  }

  /// What the tests of a file print, gathered for the result of the test that printed it, up
  /// to `LuaTestResult.outputLimit` bytes a test and `outputLimitPerFile` bytes in all; what is
  /// beyond is counted, not kept.
  private final class Printed {
    private var lines: [String] = []
    private var bytes = 0
    private var fileBytes = 0
    private var droppedLines = 0
    private var droppedBytes = 0

    func add(_ line: String) {
      let room = min(
        LuaTestResult.outputLimit - bytes, LuaTestResult.outputLimitPerFile - fileBytes)
      let size = line.utf8.count
      guard size > room else {
        lines.append(line)
        bytes += size
        fileBytes += size
        return
      }
      if room > 0 {  // the start of the line that reaches the limit, cut between characters
        let utf8 = line.utf8
        var end = utf8.index(utf8.startIndex, offsetBy: room)
        while end > utf8.startIndex, UTF8.isContinuation(utf8[end]) {
          end = utf8.index(before: end)
        }
        let kept = String(Substring(utf8[..<end]))
        lines.append(kept)
        bytes += kept.utf8.count
        fileBytes += kept.utf8.count
        droppedBytes += size - kept.utf8.count
      } else {
        droppedBytes += size
      }
      droppedLines += 1
    }

    /// What the test printed, and a line for what was not kept; empties it.
    func take() -> [String] {
      defer { (lines, bytes, droppedLines, droppedBytes) = ([], 0, 0, 0) }
      guard droppedLines > 0 else { return lines }
      let limit =
        fileBytes >= LuaTestResult.outputLimitPerFile
        ? "the tests of a file keep \(LuaTestResult.outputLimitPerFile) bytes of output in all"
        : "a test's output is kept up to \(LuaTestResult.outputLimit) bytes"
      return lines + [
        "… \(droppedLines) more line\(droppedLines == 1 ? "" : "s") (\(droppedBytes) bytes) printed, "
          + "not kept: \(limit)"
      ]
    }
  }

  private func runOnThisThread(
    name: String, filter: String?,
    load: (@escaping (String) -> Void) throws -> LuaTestSession
  ) async -> [LuaTestResult] {
    let printed = Printed()
    let output: (String) -> Void = { printed.add($0) }
    let collected: LuaTestSession
    do {
      collected = try load(output)
    } catch {
      let message = LuaTestPath.restoringShortenedNames(in: "\(error)")
      return [
        LuaTestResult(name: name, file: name, line: 0, outcome: .failed([message]), seconds: 0)
      ]
    }
    var results: [LuaTestResult] = []
    let firstRunnable = collected.tests.indices.first { index in
      let test = collected.tests[index]
      return test.pending != true
        && (filter.map { test.name.readableString?.contains($0) == true } ?? true)
    }
    for (index, test) in collected.tests.enumerated() {
      let testName = test.name.readableString ?? "test \(index + 1)"
      if let filter, !testName.contains(filter) { continue }
      let line = test.line.intValue ?? 0
      if test.pending == true {
        results.append(
          LuaTestResult(name: testName, file: name, line: line, outcome: .pending, seconds: 0))
        continue
      }
      let start = ContinuousClock.now
      var failures: [String]
      // What the file printed as it loaded goes with the first test run in that load.
      if index != firstRunnable { _ = printed.take() }
      do {
        // A fresh VM for every test: the file is loaded again, and this test alone runs. The
        // session that collected the tests is fresh too, until its first test has run in it.
        let session = index == firstRunnable ? collected : try load(output)
        if let changed = Self.changedDeclaration(of: index, first: collected, again: session) {
          failures = ["\(name): \(changed)"]
        } else {
          session.maximumWakeUpsPerAdvance = maximumWakeUpsPerAdvance
          failures = await session.runTest(index, timeLimit: timeLimit)
        }
      } catch {
        failures = ["\(error)"]
      }
      // Lua's own positions and tracebacks cut a long path to "...its end": written whole.
      failures = failures.map(LuaTestPath.restoringShortenedNames(in:))
      let elapsed = ContinuousClock.now - start
      let seconds = Seconds.of(elapsed)
      results.append(
        LuaTestResult(
          name: testName, file: name, line: line,
          outcome: failures.isEmpty ? .passed : .failed(failures), seconds: seconds,
          output: printed.take()))
    }
    return results
  }
}
