/// The actions of a navigation stack (as TCA's `StackAction`), embedded in the parent's action.
public enum StackAction<State, Action> {
  /// An action for the screen `id`, run by its reducer.
  case element(id: StackElementID, action: Action)
  /// Pops the screen `id` and every screen above it (a back button). The parent sees it first,
  /// with the screen still on the stack.
  case popFrom(id: StackElementID)
  /// Pushes a screen (a navigation link), after the parent has seen the action.
  case push(State)
}

extension StackAction: Equatable where State: Equatable, Action: Equatable {}
extension StackAction: Sendable where State: Sendable, Action: Sendable {}
