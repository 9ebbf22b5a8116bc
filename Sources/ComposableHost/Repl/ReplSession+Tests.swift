import Composable
import ComposableLua
import Foundation
import LuaKit

/// `:test FILE`: the session as a test, in Lua (`NAME_test.lua`) or Swift (`NAME.swift`).
extension ReplSession {
  func writeTest(_ argument: String) async {
    guard argument.hasSuffix("_test.lua") || argument.hasSuffix(".swift") else {
      return printer.error(
        ":test takes a Lua test's name (:test session_test.lua) or a Swift file's (:test "
          + "SessionTests.swift)")
    }
    let isLua = argument.hasSuffix("_test.lua")
    let featureDirectory = file.deletingLastPathComponent().resolvingSymlinksInPath()
    // A Lua test's bare name goes beside the feature, wherever the REPL was started: the one
    // place it can go (it finds the feature by its module name).
    let url =
      isLua && !argument.contains("/")
      ? featureDirectory.appendingPathComponent(argument)
      : URL(fileURLWithPath: argument)
    let shown = isLua && !argument.contains("/") ? Self.shownPath(url) : argument
    guard !FileManager.default.fileExists(atPath: url.path) else {
      return printer.error(
        "\(shown) exists, and :test does not write over a file: remove it, or choose another "
          + "name")
    }
    let swiftName = url.deletingPathExtension().lastPathComponent
    if !isLua, swiftName.wholeMatch(of: #/[A-Za-z_][A-Za-z0-9_]*/#) == nil {
      return printer.error(
        "\(url.lastPathComponent): the file's name is the test suite's, so it must be a Swift "
          + "name (:test SessionTests.swift)")
    }
    if isLua, url.deletingLastPathComponent().resolvingSymlinksInPath() != featureDirectory {
      return printer.error(
        "write a Lua test beside \(file.lastPathComponent) (in \(featureDirectory.path)): it "
          + "finds the feature by its module name")
    }
    let live = await store.runningEffects.filter { !$0.isStateSave }.map(describe)
    let text: String
    do {
      // After a migration the test starts there (`recording()`), and so do its exchanges.
      let since = timeline.lastMigration.flatMap { timeline.action($0.position)?.time } ?? 0
      var plan = try SessionTestPlan(
        recording: recording(), exchanges: exchanges.all.filter { $0.start >= since },
        feature: file, inFlight: [])
      // What the test will find running, from a run of its steps: after a jump, which cancels
      // the session's effects, the session's own list disagrees with the test's store.
      plan.inFlight = await plan.effectsInFlight() ?? live
      let name = url.deletingPathExtension().lastPathComponent
      text =
        isLua
        ? try LuaTestWriter.text(plan, name: String(name.dropLast("_test".count)))
        : try SwiftTestWriter.text(plan, name: name, testFile: url)
      try Data(text.utf8).write(to: url, options: .withoutOverwriting)
    } catch {
      return printer.error("the test was not written: \(error)")
    }
    let sends =
      text.components(separatedBy: "store:send(").count - 1
      + text.components(separatedBy: "await store.send(").count - 1
    let receives =
      text.components(separatedBy: "store:receive(").count - 1
      + text.components(separatedBy: "await store.receive(").count - 1
    if let note = migrationNote { printer.line(note) }
    var line = "  wrote \(shown): \(sends) sent, \(receives) received"
    guard isLua else { return printer.line(line) }
    // Run at once: a test written from a session passes when written.
    let results = await LuaTestRunner().run(file: url)
    let failures = results.compactMap { result -> [String]? in
      if case let .failed(messages) = result.outcome { return messages } else { return nil }
    }.flatMap { $0 }
    if failures.isEmpty, !results.isEmpty {
      line += "; it passes (composable test \(shown))"
      printer.line(line)
    } else {
      printer.line(line)
      printer.error("it does not pass yet:\n" + failures.joined(separator: "\n"))
    }
  }

  /// `url` as the REPL's user would type it: relative to the current folder when it is inside
  /// it, whole otherwise.
  static func shownPath(_ url: URL) -> String {
    let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
      .resolvingSymlinksInPath().path
    let path = url.path
    return path.hasPrefix(current + "/") ? String(path.dropFirst(current.count + 1)) : path
  }
}
