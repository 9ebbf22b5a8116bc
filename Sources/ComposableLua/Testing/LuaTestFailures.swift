import Composable
import Foundation
import IssueReporting
import LuaKit

struct LuaTestError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Collects the issues a test's TestStores report, each at the Lua line that was in flight.
final class LuaTestFailures: IssueReporter, @unchecked Sendable {
  private let lock = NSLock()
  /// Each failure, and whether `expect_failure` may take it as expected: a store's issue is,
  /// the test's own failure (an assertion, an error in its body) never. An `expect_failure`
  /// left open by a coroutine and closed in an `after_each` erased the body's failure.
  private var failures: [(message: String, expectable: Bool)] = []
  private var current: (file: String, line: Int) = ("?", 0)

  var site: (file: String, line: Int) {
    get { lock.withLock { current } }
    set { lock.withLock { current = newValue } }
  }

  var all: [String] { lock.withLock { failures.map(\.message) } }

  /// How many failures there are: a mark for `removeFailures(after:where:)`.
  var count: Int { lock.withLock { failures.count } }

  /// Removes the expectable failures recorded after `mark` that `matches`; returns how many went.
  func removeFailures(after mark: Int, where matches: (String) -> Bool) -> Int {
    lock.withLock {
      guard mark < failures.count else { return 0 }
      let late = failures[mark...]
      let kept = late.filter { !$0.expectable || !matches($0.message) }
      let removed = late.count - kept.count
      failures.replaceSubrange(mark..., with: kept)
      return removed
    }
  }

  /// The Lua call whose work is running: set around each call, inherited by the effects it
  /// starts.
  @TaskLocal static var effectSite: (file: String, line: Int)?

  /// The `fileID` the session gives the TestStore with a Lua line: an issue reported there is at
  /// that line of the test (an effect left running, at the line of the `send` that started it).
  static let luaFileID: StaticString = "<lua test>"

  /// Where an issue reported at `fileID`/`line` goes: the Lua line it carries, or else the Lua
  /// call in flight.
  private func site(fileID: StaticString, line: UInt) -> (file: String, line: Int) {
    if fileID.description == Self.luaFileID.description { return (site.file, Int(line)) }
    return Self.effectSite ?? site
  }

  /// Adds a failure at `site`; `expectable` when it is a store call's, which `expect_failure`
  /// may take as expected.
  func add(_ message: String, at site: (file: String, line: Int)?, expectable: Bool = false) {
    let message = Self.withoutLibraryFrames(message)
    lock.withLock {
      if let site {
        failures.append(("\(site.file):\(site.line): \(message)", expectable))
      } else {
        failures.append((message, expectable))
      }
    }
  }

  func reportIssue(
    _ message: @autoclosure () -> String?, severity: IssueSeverity, fileID: StaticString,
    filePath: StaticString, line: UInt, column: UInt
  ) {
    guard severity == .error else { return }
    add(message() ?? "Issue recorded", at: site(fileID: fileID, line: line), expectable: true)
  }

  func reportIssue(
    _ error: any Error, _ message: @autoclosure () -> String?, fileID: StaticString,
    filePath: StaticString, line: UInt, column: UInt
  ) {
    add(
      message().map { "\($0): \(error)" } ?? "\(error)", at: site(fileID: fileID, line: line))
  }

  func expectIssue(
    _ message: @autoclosure () -> String?, fileID: StaticString, filePath: StaticString,
    line: UInt, column: UInt
  ) {}
}

extension LuaTestFailures {
  /// The message without the test library's own places: a position in it (`composable.test:235:
  /// `) and traceback lines in it, the sandbox or `xpcall`. What is left points at the test's
  /// code, where the person can do something about it.
  static func withoutLibraryFrames(_ message: String) -> String {
    let internalPosition = #/=?composable\.test:\d+: /#
    let kept = message.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
      let isFrame = line.hasPrefix("\t")
      return !isFrame
        || !(line.contains("composable.test:") || line.contains("sandbox:")
          || line.contains("[C]: in function 'xpcall'")
          || line.contains("[C]: in function 'error'") || line.contains("[C]: in function 'pcall'"))
    }
    // A traceback whose every frame was the library's says nothing.
    let lines = kept.last == "stack traceback:" ? kept.dropLast() : kept[...]
    return lines.joined(separator: "\n").replacing(internalPosition, with: "")
  }
}
