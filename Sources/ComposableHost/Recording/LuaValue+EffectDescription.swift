import LuaKit

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
