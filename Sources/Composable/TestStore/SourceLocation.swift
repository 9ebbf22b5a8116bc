/// Where a test called the TestStore, so a failure points at that line.
struct TestSourceLocation: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt
}

/// Where a test is while the store does the work one of its calls started (a send, and the
/// effects that send starts): a reducer that reports an issue of its own, a Lua feature whose
/// action failed, reports it here, at the test's line, rather than in the reducer's file.
public struct TestCallSite: Sendable {
  /// The file of the test's call, as `#fileID` gives it.
  public let fileID: StaticString
  /// The full path of that file, as `#filePath` gives it.
  public let filePath: StaticString
  /// The line of the test's call.
  public let line: UInt
  /// The column of the test's call.
  public let column: UInt

  /// The TestStore call this task works for; nil outside one. The TestStore sets it around each
  /// `send`, and the effects started there inherit it.
  @TaskLocal public static var current: TestCallSite?

  init(_ location: TestSourceLocation) {
    fileID = location.fileID
    filePath = location.filePath
    line = location.line
    column = location.column
  }
}
