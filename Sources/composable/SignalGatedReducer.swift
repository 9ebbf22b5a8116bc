import Composable

/// A reducer run under `SignalSaver.actionGate`: the signal's thread, which takes the gate for
/// good before it saves and ends the process, never saves between an action's commit and its
/// printed changes, nor lets an action commit after the save.
struct SignalGatedReducer<Base: Reducer>: Reducer {
  let base: Base

  func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    SignalSaver.actionGate.lock()
    defer { SignalSaver.actionGate.unlock() }
    return base.reduce(into: &state, action: action)
  }
}

extension Reducer {
  /// This reducer under `SignalSaver.actionGate`.
  func gatedAgainstEndingSignals() -> SignalGatedReducer<Self> { SignalGatedReducer(base: self) }
}
