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
      : URL(pathGiven: argument)
    let shown = isLua && !argument.contains("/") ? Self.shownPath(url) : argument
    // Any entry of that name, a symlink too, dangling or not (fileExists follows one, and the
    // write then failed with Foundation's raw error).
    var entry = stat()
    guard lstat(url.path, &entry) != 0 else {
      let what = entry.st_mode & S_IFMT == S_IFLNK ? " (a symbolic link)" : ""
      return printer.error(
        "\(shown) exists\(what), and :test does not write over a file: remove it, or choose "
          + "another name")
    }
    let swiftName = url.deletingPathExtension().lastPathComponent
    if !isLua,
      swiftName.wholeMatch(of: #/[A-Za-z_][A-Za-z0-9_]*/#) == nil || swiftName == "_"
        || Self.swiftKeywords.contains(swiftName)
    {
      return printer.error(
        "\(url.lastPathComponent.terminalSafe): the file's name is the test suite's, so it must "
          + "be a Swift name that is no keyword (:test SessionTests.swift)")
    }
    // A Lua test requires its feature by module name: the file's name without `.lua`, which
    // must be one (`x.y.lua` would be `x/y.lua`, another file; `café` no module at all).
    let module = file.deletingPathExtension().lastPathComponent
    if isLua,
      module.wholeMatch(of: #/[A-Za-z0-9_-]+/#) == nil
    {
      return printer.error(
        "\(file.lastPathComponent.terminalSafe): a Lua test finds its feature by module name, "
          + "and this file's name is none (letters a-z and A-Z, digits, _ and -; no dots). To "
          + "fix, rename the feature, or write a Swift test (:test SessionTests.swift), which "
          + "names its file")
    }
    if isLua, url.deletingLastPathComponent().resolvingSymlinksInPath() != featureDirectory {
      return printer.error(
        "write a Lua test beside \(file.lastPathComponent) (in \(featureDirectory.path)): it "
          + "finds the feature by its module name")
    }
    let live = await store.runningEffects.filter { !$0.isStateSave }.map(describe)
    let text: String
    do {
      // After a migration, or a reload that changed the history, the test starts there
      // (`recording()`), and so do its exchanges.
      await checkReloads()
      let since = timeline.lastBoundary.flatMap { timeline.action($0.position)?.time } ?? 0
      let start = timeline.lastBoundary?.position ?? 0
      // Actions effects sent that the session undid (`:undo`) and that raised: the test's store
      // may meet them too, as effects' failures after its last action. Those before the first
      // action undone that was sent: the effects of later ones are not in the test.
      var failures = timeline.effectFailures(after: start)
      let undone = timeline.actions.dropFirst(timeline.position).prefix(while: \.fromEffect)
      failures[timeline.position - start + 1, default: []] += undone.compactMap { action in
        guard action.fromEffect, let error = action.error else { return nil }
        return (action.time, SessionTestPlan.expectedMessage(error))
      }
      var plan = try SessionTestPlan(
        // Not those of actions undone (past where the session stands): the test ends there.
        recording: await recording(),
        exchanges: exchanges.all(
          leavingOutFrom: timeline.requestsBegun(before: timeline.position),
          after: timeline.time(ofAction: timeline.position)
        ).filter { $0.start >= since && ($0.startedBy ?? 0) <= timeline.position },
        effectDraws: timeline.effectDraws(after: start).map { ($0.startedBy - start, $0.draw) },
        wakingNow: timeline.actionsAfterSleepsDueNow(after: start),
        cancelledByHand: timeline.effectsCancelledByHand(after: start),
        effectFailures: failures, feature: file, inFlight: [])
      // What the test will find running, from a run of its steps: after a jump, which cancels
      // the session's effects, the session's own list disagrees with the test's store.
      plan.undoneReceived = timeline.actions.dropFirst(timeline.position).contains {
        $0.fromEffect
      }
      plan.inFlight = await plan.effectsInFlight() ?? live
      let name = url.deletingPathExtension().lastPathComponent
      text =
        isLua
        ? try LuaTestWriter.text(plan, name: String(name.dropLast("_test".count)))
        : try SwiftTestWriter.text(plan, name: name, testFile: url)
      // The suite's name must name nothing the test uses (`TestStore`, `URL`): the test would
      // find its own suite there.
      let words = text.split { !($0.isLetter || $0.isNumber || $0 == "_") }
      if !isLua, words.filter({ $0 == name }).count > 1 {
        return printer.error(
          "\(url.lastPathComponent.terminalSafe): \(name) is a name the test uses, so the suite "
            + "cannot have it. To fix, choose another (:test SessionTests.swift)")
      }
      // Whole or not at all: a kill while it is written leaves no half test.
      try ReplacedFile.write(Array(text.utf8), to: url, replacing: false)
    } catch {
      return printer.error("the test was not written: \(error)")
    }
    let sends =
      text.components(separatedBy: "store:send(").count - 1
      + text.components(separatedBy: "await store.send(").count - 1
    let receives =
      text.components(separatedBy: "store:receive(").count - 1
      + text.components(separatedBy: "await store.receive(").count - 1
    if let note = startNote { printer.line(note) }
    let byHand = timeline.effectsCancelledByHand(after: timeline.lastBoundary?.position ?? 0)
      .values.reduce(0) { $0 + $1.count }
    if byHand > 0 {
      printer.line(
        "  note: the session ended \(byHand == 1 ? "an effect" : "\(byHand) effects") with "
          + ":cancel, which a test cannot do: in the test \(byHand == 1 ? "it runs" : "they run")"
          + " on (a comment says where). To end one in a test, send an action whose reducer "
          + "cancels it")
    }
    var line = "  wrote \(shown.terminalSafe): \(sends) sent, \(receives) received"
    guard isLua else { return printer.line(line) }
    // Run at once: a test written from a session passes when written.
    let results = await LuaTestRunner().run(file: url)
    let failures = results.compactMap { result -> [String]? in
      if case let .failed(messages) = result.outcome { return messages } else { return nil }
    }.flatMap { $0 }
    if failures.isEmpty, !results.isEmpty {
      line += "; it passes (composable test \(shown.terminalSafe))"
      printer.line(line)
    } else {
      printer.line(line)
      printer.error("it does not pass yet:\n" + failures.joined(separator: "\n"))
    }
  }

  /// Swift's keywords, which cannot name a suite (`struct class`).
  static let swiftKeywords: Set<String> = [
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import",
    "init", "inout", "internal", "let", "open", "operator", "private", "precedencegroup",
    "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
    "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough",
    "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any",
    "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try",
    "some", "any", "async",
  ]

  /// `url` as the REPL's user would type it: relative to the current folder when it is inside
  /// it, whole otherwise.
  static func shownPath(_ url: URL) -> String {
    let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
      .resolvingSymlinksInPath().path
    let path = url.path
    return path.hasPrefix(current + "/") ? String(path.dropFirst(current.count + 1)) : path
  }
}
