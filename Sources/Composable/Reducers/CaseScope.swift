import IssueReporting

/// How an enum state holds one case's value: the same embed/extract pair as an `ActionCase`,
/// for state (a stack's screen, a presented destination of several kinds).
public typealias StateCase<Root, Value> = ActionCase<Root, Value>

/// Runs a child reducer on one case of an enum state, for the parent actions that carry a
/// child action (as TCA's `Scope(state: \.case, action: \.case)` over an enum): how a stack's
/// screens or a destination of several kinds each run their own reducer.
///
/// ```swift
/// CombineReducers(
///   CaseScope(state: Path.State.detailCase, action: Path.Action.detailCase) { Detail() },
///   CaseScope(state: Path.State.meetingCase, action: Path.Action.meetingCase) { Meeting() })
/// ```
public struct CaseScope<ParentState, ParentAction: Sendable, Child: Reducer>: Reducer {
  let state: StateCase<ParentState, Child.State>
  let action: ActionCase<ParentAction, Child.Action>
  let child: Child
  let site: CallSite

  /// Runs `child` on the case that `state` extracts, for the actions that `action` extracts. A
  /// child action that comes while the state is another case is reported as an issue.
  ///
  /// ```swift
  /// CaseScope(state: Path.State.detailCase, action: Path.Action.detailCase) { Detail() }
  /// ```
  public init(
    state: StateCase<ParentState, Child.State>,
    action: ActionCase<ParentAction, Child.Action>,
    child: () -> Child,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    self.state = state
    self.action = action
    self.child = child()
    self.site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  public func reduce(
    into parent: inout ParentState, action parentAction: ParentAction
  ) -> Effect<ParentAction> {
    guard let childAction = action.extract(parentAction) else { return .none }
    guard var childState = state.extract(parent) else {
      reportIssue(
        """
        A "CaseScope" at "\(site.fileID):\(site.line)" received a child action when the state \
        was another case.

            Action: \(childAction)
            State: \(parent)

        This usually means the action was meant for another kind of screen or destination. To \
        fix, send a case's actions only while the state is that case.
        """, fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column)
      return .none
    }
    let effect = child.reduce(into: &childState, action: childAction)
    parent = state.embed(childState)
    return effect.map(action.embed)
  }
}
