import IssueReporting

extension Reducer {
  /// Runs `child` on optional child state while it exists. The child runs first; when the
  /// parent then sets the child state to nil, the child's effects are cancelled.
  ///
  /// ```swift
  /// Reduce<Parent.State, Parent.Action> { state, action in ... }
  ///   .ifLet(\.child, action: Parent.childCase) { Counter() }
  /// ```
  public func ifLet<Child: Reducer>(
    _ state: WritableKeyPath<State, Child.State?>,
    action: ActionCase<Action, Child.Action>,
    then child: () -> Child,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> IfLetReducer<Self, Child> {
    IfLetReducer(
      parent: self, state: state, action: action, child: child(), fileID: fileID,
      filePath: filePath, line: line, column: column)
  }
}

/// The reducer `ifLet(_:action:then:)` returns for optional child state. It runs the child's
/// actions while the child state exists, then the parent, and cancels the child's effects when
/// the parent sets the child state to nil.
public struct IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
  let parent: Parent
  let state: WritableKeyPath<Parent.State, Child.State?>
  let action: ActionCase<Parent.Action, Child.Action>
  let child: Child
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  public func reduce(
    into state: inout Parent.State, action parentAction: Parent.Action
  ) -> Effect<Parent.Action> {
    let id = EffectID(ChildEffectsID(path: self.state, element: 0))
    var childEffect = Effect<Parent.Action>.none
    if let childAction = action.extract(parentAction) {
      if state[keyPath: self.state] != nil {
        childEffect = child.reduce(into: &state[keyPath: self.state]!, action: childAction)
          .scopingIDs(to: id).map(action.embed).cancellable(id: id)
      } else {
        reportIssue(
          """
          An "ifLet" at "\(fileID):\(line)" received a child action when the child state was nil.

              Action: \(childAction)

          This usually means the action was sent after the child went away, for instance by an \
          effect that was not cancelled. To fix, make sure child actions are only sent while \
          the child state exists.
          """, fileID: fileID, filePath: filePath, line: line, column: column)
      }
    }
    // A child that refused the action: the parent does not go on as if it had succeeded.
    if childEffect.failure != nil { return childEffect }
    let hadChild = state[keyPath: self.state] != nil
    let parentEffect = parent.reduce(into: &state, action: parentAction)
    let cancel: Effect<Parent.Action> =
      hadChild && state[keyPath: self.state] == nil ? .cancel(id: id) : .none
    return .merge(childEffect, parentEffect, cancel)
  }
}

/// The cancellation id of the effects of one child: which child state, and which element.
struct ChildEffectsID: Hashable, @unchecked Sendable, CustomStringConvertible {
  // Key paths are immutable values; they only lack the Sendable annotation.
  let path: AnyKeyPath
  let element: AnyHashable

  init(path: AnyKeyPath, element: some Hashable & Sendable) {
    self.path = path
    self.element = element
  }

  var description: String { "\(path) \(element)" }
}
