/// Receiving by case, as TCA 1.x does: `store.receive(\.fetched)` for any action of that case,
/// `store.receive(\.todos, "sort")` for that case holding that value.
extension TestStore where Action: CasePathable {
  /// Waits for the next action an effect sends, checks it is of the case `actionCase` (any
  /// value), and checks the state it leads to.
  ///
  /// ```swift
  /// await store.send(.refreshTapped)
  /// await store.receive(\.fetched) { $0.items = ["milk"] }
  /// ```
  public nonisolated(nonsending) func receive<Value>(
    _ actionCase: CaseKeyPath<Action, Value>,
    timeout: Duration? = nil,
    assert updateExpectedState: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let path = SendableCaseKeyPath(actionCase)
    await receive(
      where: { $0[case: path.path] != nil }, expecting: nil, timeout: timeout,
      assert: updateExpectedState, fileID: fileID, filePath: filePath, line: line,
      column: column)
  }

  /// Waits for the next action an effect sends and checks it is the case `actionCase` holding
  /// `value` (for a Lua child, a whole action or its bare type), then the state it leads to.
  ///
  /// ```swift
  /// await store.receive(\.todos, "sort") { $0.todos.items = ["eggs", "milk"] }
  /// ```
  public nonisolated(nonsending) func receive<Value>(
    _ actionCase: CaseKeyPath<Action, Value>,
    _ value: Value,
    timeout: Duration? = nil,
    assert updateExpectedState: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async where Action: Equatable {
    await receive(
      actionCase(value), timeout: timeout, assert: updateExpectedState, fileID: fileID,
      filePath: filePath, line: line, column: column)
  }
}
