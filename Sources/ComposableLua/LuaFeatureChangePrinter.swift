import Composable
import LuaKit

extension LuaFeatureReducer where State == LuaFeatureHandle {
  /// Prints each action and where it changed the state, as `printChanges` does for a store that
  /// holds a copy, in the same words. The changes are read from the action's transaction before
  /// it commits, looking only into the tables it changed: no copy of the state is kept or
  /// compared, so a state of 100,000 todos costs no memory beside itself.
  public func printChanges(to printer: ChangePrinter = .console) -> LuaFeatureChangePrinter {
    LuaFeatureChangePrinter(base: self, printer: printer)
  }
}

/// A Lua feature's reducer on a store that holds a handle, printing each action's changes.
public struct LuaFeatureChangePrinter: Reducer {
  public typealias State = LuaFeatureHandle
  public typealias Action = LuaValue

  let base: LuaFeatureReducer<LuaFeatureHandle>
  let printer: ChangePrinter

  public func reduce(into state: inout LuaFeatureHandle, action: LuaValue) -> Effect<LuaValue> {
    var changes: Result<[LuaDifference], LuaFeatureError> = .success([])
    var effect = Effect<LuaValue>.none
    do throws(LuaFeatureError) {
      effect = try base.feature.reduceToEffect(
        .value(action), dependencies: base.dependencies, onError: base.onError,
        changes: &changes)
    } catch {
      base.onError(error)  // rolled back: no changes
    }
    let difference: String?
    switch changes {
    case let .success(differences):
      difference = LuaValue.notation(of: differences, colored: printer.colored)
    case let .failure(error):
      difference = "(the changes could not be read: \(error))"
    }
    printer.write(action: action.notation, difference: difference)
    return effect
  }
}
