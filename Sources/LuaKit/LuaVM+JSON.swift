import CLua
import LuaSupport

extension LuaVM {
  /// A table of JSON functions for Lua code, made in C (`JSON.c`): `encode(value)`,
  /// `decode(text)`, `array([t])` and `null`. A host offers it as a module of its choice.
  public func jsonModule() -> LuaReference {
    stack.guarded { () -> LuaReference in
      lk_push_json_module(L)
      return makeReference(at: -1, L)
    }
  }
}

extension LuaVM {
  /// `json.encode(value)` for the host: the JSON text of a Lua value, by the same rules and
  /// with the same errors as feature code gets. JSON cannot share: a value that holds its
  /// tables at so many places that it would be written more than
  /// `LuaValue.maximumCopiesOfSharedTables` times over is refused before anything is written.
  public func jsonEncode(_ value: LuaValue) throws(LuaError) -> String {
    let copies = value.copiesOfSharedTables(limit: LuaValue.maximumCopiesOfSharedTables + 1)
    guard copies <= LuaValue.maximumCopiesOfSharedTables else {
      throw .conversion(path: "", message: LuaValue.tooManyCopiesMessage)
    }
    return try call(jsonFunction("encode"), value).first?.stringValue ?? ""
  }

  /// `json.decode(text)` for the host.
  public func jsonDecode(_ bytes: [UInt8]) throws(LuaError) -> LuaValue {
    try call(jsonFunction("decode"), .string(LuaString(bytes: bytes))).first ?? .nil
  }

  private func jsonFunction(_ name: String) -> LuaReference {
    stack.guarded { () -> LuaReference in
      lk_push_json_module(L)
      lua_getfield(L, -1, name)
      return makeReference(at: -1, L)
    }
  }
}
