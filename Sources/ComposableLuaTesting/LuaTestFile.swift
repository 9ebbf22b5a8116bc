import ComposableLua
import Foundation
import Testing

/// A `*_test.lua` file as a case of a Swift test, so that `swift test` runs a feature's Lua
/// tests beside its Swift ones: every Lua test that fails is an issue at its line in the
/// `.lua` file, with the Lua test's name and message.
///
/// ```swift
/// import ComposableLuaTesting
/// import Testing
///
/// @Test(arguments: LuaTestFile.all(in: "lua"))  // Tests/MyAppTests/lua/**/*_test.lua
/// func lua(_ file: LuaTestFile) async { await file.run() }
/// ```
public struct LuaTestFile: Sendable, CustomTestStringConvertible {
  /// The file.
  public let url: URL

  /// The test file at `url`.
  ///
  /// ```swift
  /// @Test func todos() async {
  ///   await LuaTestFile(URL(fileURLWithPath: "Tests/lua/todos_test.lua")).run()
  /// }
  /// ```
  public init(_ url: URL) { self.url = url }

  /// Its name, as the test's case is shown (`todos_test.lua`).
  public var testDescription: String { url.lastPathComponent }

  /// The `*_test.lua` files under `folder` (a path relative to the folder of the Swift file that
  /// calls this, or absolute), sorted, `fixtures` folders skipped, as `composable test` finds
  /// them. A folder with none gives a file that fails, naming the folder: a misspelt path never
  /// passes by testing nothing.
  public static func all(in folder: String, besides filePath: String = #filePath) -> [LuaTestFile] {
    let base = URL(fileURLWithPath: filePath).deletingLastPathComponent()
    let directory =
      folder.hasPrefix("/") ? URL(fileURLWithPath: folder) : base.appendingPathComponent(folder)
    let found = LuaTestRunner().discover([directory.path]).map(LuaTestFile.init)
    return found.isEmpty ? [LuaTestFile(directory.appendingPathComponent(noTests))] : found
  }

  /// The name `all(in:)` gives when it finds nothing.
  static let noTests = "(no *_test.lua here)"

  /// Runs the file's tests (those whose names contain `filter`, all when nil); each failure is
  /// recorded as an issue at its line in the Lua file. Returns the results, for a test that
  /// wants to check more.
  @discardableResult
  public func run(
    filter: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
  ) async -> [LuaTestResult] {
    if url.lastPathComponent == Self.noTests {
      let folder = url.deletingLastPathComponent().path
      let message =
        "No *_test.lua file under \(folder). To fix, put the Lua tests there or name the folder "
        + "that holds them."
      Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
      return []
    }
    let results = await LuaTestRunner().run(file: url, filter: filter)
    if results.isEmpty {
      let message =
        filter.map { "no test of \(url.lastPathComponent) has \($0.debugDescription) in its name" }
        ?? "\(url.lastPathComponent) holds no test"
      Issue.record(Comment(rawValue: message), sourceLocation: location(line: 1))
    }
    for result in results {
      guard case let .failed(failures) = result.outcome else { continue }
      for failure in failures {
        // The runner names the file by its path (`result.file`), as its failures do.
        let (line, message) = Self.split(failure, file: result.file)
        Issue.record(
          Comment(rawValue: "\(result.name): \(message)"),
          sourceLocation: location(line: line ?? result.line))
      }
    }
    return results
  }

  /// `Tests/lua/todos_test.lua:12: message` as its line and its message; a load error names its
  /// line after a word or two (`syntax error: Tests/lua/todos_test.lua:3: ...`), which counts too. A failure
  /// that names no line of this file (an error in a module it loads, say) is kept whole.
  package static func split(_ failure: String, file: String) -> (line: Int?, message: String) {
    let prefix = file + ":"
    var searched = failure[...]
    while let found = searched.range(of: prefix) {
      let rest = failure[found.upperBound...]
      if let colon = rest.firstIndex(of: ":"), let line = Int(rest[..<colon]) {
        let before = failure[..<found.lowerBound]
        let after = rest[rest.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return (line, before.isEmpty ? after : before + after)
      }
      searched = failure[found.upperBound...]
    }
    return (nil, failure)
  }

  private func location(line: Int) -> SourceLocation {
    SourceLocation(
      fileID: "lua/\(url.lastPathComponent)", filePath: url.path, line: max(line, 1), column: 1)
  }
}
