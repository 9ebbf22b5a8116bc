import Composable
import LuaKit

/// Actions reduced again from a recording, with no effect run.
extension LuaFeature {
  /// Reduces `action` as a transaction, as a store does, and checks the effect it returns as a
  /// store does, but runs none of it: in a replay, what effects did comes back recorded, as
  /// the actions they sent. Returns the effect's `effectDescription` (nil for none). A failed
  /// action is rolled back and its error thrown, as in a store.
  public func replay(
    _ action: LuaValue, dependencies: LuaFeatureDependencies
  ) throws(LuaFeatureError) -> LuaValue {
    var wrote = false
    return try reduce(.value(action), dependencies: dependencies, wrote: &wrote) {
      (returned, vm) throws(LuaFeatureError) -> LuaValue in
      guard case .nil = returned else {
        _ = try LuaEffectInterpreter(
          feature: self, vm: vm, dependencies: dependencies,
          describeAction: { LuaFeatureAction.value(action).description }, onError: { _ in }
        ).effect(from: returned)
        return returned.effectDescription
      }
      return .nil
    }
  }
}

extension LuaValue {
  /// What a reducer returned as an effect, comparable across runs and VMs: functions (the body
  /// of an `effect.run`) and other references are written as `"<function>"`, `"<userdata>"`.
  /// A table the effect holds at several places is one table in the description too.
  public var effectDescription: LuaValue {
    mappingScalars { value in
      switch value {
      case .function: return "<function>"
      case let .other(reference): return .string(LuaString("<\(reference.typeName)>"))
      default: return value
      }
    }
  }
}
