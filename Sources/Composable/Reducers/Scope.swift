/// Runs a child reducer on a part of the parent's state, for the parent actions that carry a
/// child action; the child's effects come back as parent actions.
public struct Scope<ParentState, ParentAction: Sendable, Child: Reducer>: Reducer {
  let state: WritableKeyPath<ParentState, Child.State>
  let action: ActionCase<ParentAction, Child.Action>
  let child: Child

  /// Runs `child` on the state at `state`, for the parent actions that `action` extracts; the
  /// child's effects come back embedded by `action`.
  ///
  /// ```swift
  /// Scope(state: \App.State.counter, action: App.counterCase) { Counter() }
  /// ```
  public init(
    state: WritableKeyPath<ParentState, Child.State>,
    action: ActionCase<ParentAction, Child.Action>,
    child: () -> Child
  ) {
    self.state = state
    self.action = action
    self.child = child()
  }

  public func reduce(
    into parent: inout ParentState, action parentAction: ParentAction
  ) -> Effect<ParentAction> {
    guard let childAction = action.extract(parentAction) else { return .none }
    return child.reduce(into: &parent[keyPath: state], action: childAction).map(action.embed)
  }
}
