import Composable
import LuaKit

extension LuaFeatureReducer where State == LuaFeatureHandle {
  /// Prints each action and where it changed the state, as `printChanges` does for a store that
  /// holds a copy, in the same words. The changes are read from the action's transaction before
  /// it commits (a walk over the state finds the tables that changed; only those are read and
  /// compared): no copy of the state is kept, so 100,000 todos cost no memory beside themselves.
  /// An action that failed prints nothing: its error, which `onError` is given, says it all (it
  /// changed nothing, since it was rolled back).
  ///
  /// `unchanged`, given an action that changed nothing and started no effect, may say why
  /// (`composable run`: a type the feature names nowhere).
  public func printChanges(
    to printer: ChangePrinter = .console,
    unchanged: (@Sendable (LuaValue) -> String?)? = nil
  ) -> LuaFeatureChangePrinter {
    LuaFeatureChangePrinter(base: self, printer: printer, unchanged: unchanged)
  }
}

/// A Lua feature's reducer on a store that holds a handle, printing each action's changes (and
/// nothing for an action that failed, whose error goes to the reducer's `onError`).
public struct LuaFeatureChangePrinter: Reducer {
  /// The store holds a handle: the state stays in Lua.
  public typealias State = LuaFeatureHandle
  /// The feature's actions, as Lua values.
  public typealias Action = LuaValue

  let base: LuaFeatureReducer<LuaFeatureHandle>
  let printer: ChangePrinter
  let unchanged: (@Sendable (LuaValue) -> String?)?

  public func reduce(into state: inout LuaFeatureHandle, action: LuaValue) -> Effect<LuaValue> {
    let outcome = base.step(into: &state, action: action, readingChanges: true)
    // A failed action's error is its report: "(No state changes)" after it would only confuse.
    guard !outcome.failed else { return outcome.effect }
    let difference = LuaValue.notation(of: outcome.changes, colored: printer.colored)
    let note = difference == nil && outcome.effect.isNone ? unchanged?(action) : nil
    printer.write(action: action.notation, difference: difference, note: note)
    return outcome.effect
  }
}
