/// Where a test called the TestStore, so a failure points at that line.
struct TestSourceLocation: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt
}
