/// Something Swift passes into Lua as an argument: a value, a handle, or any `Encodable`
/// marshalled straight onto the Lua stack.
public struct LuaArgument {
  let push: (LuaStack, LuaVM) throws(LuaError) -> Void

  func push(onto stack: LuaStack, in vm: LuaVM) throws(LuaError) { try push(stack, vm) }

  /// `value`, pushed as a `LuaValue` is: a table as a new Lua table, a function or another
  /// reference as the value it refers to.
  public static func value(_ value: LuaValue) -> LuaArgument {
    LuaArgument { (stack, vm) throws(LuaError) in try stack.push(value, in: vm) }
  }

  /// The value behind `reference`, itself: a table kept in Lua is passed, not a copy of it.
  public static func reference(_ reference: LuaReference) -> LuaArgument {
    LuaArgument { (stack, vm) throws(LuaError) in try stack.push(reference, in: vm) }
  }

  /// The value encoded by `LuaEncoder`; `name` is how errors name it (`action.id: ...`).
  public static func encoded<Value: Encodable>(
    _ value: Value, as name: String = "value"
  ) -> LuaArgument {
    LuaArgument { (stack, vm) throws(LuaError) in
      try LuaEncoder().push(value, onto: stack, vm: vm, rootName: name)
    }
  }
}
