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
      if let site {
        failures.append("\(site.file):\(site.line): \(message)")
      } else {
        failures.append(message)
      }
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
