import CLua
import LuaSupport

/// Running a chunk whose result stays in Lua, and reading a table one level deep: for a host
/// that reads a few fields of what a script returned (a module's functions and settings) and
/// must not take a snapshot of the rest, which may be what no snapshot takes (a class whose
/// `__index` is itself, a userdata, a table nested 300 levels).
extension LuaVM {
  /// Loads and runs `source` and keeps its first result in Lua: a handle on it, or nil when it
  /// returned nothing or nil.
  ///
  /// ```swift
  /// let module = try vm.evaluateKeepingResult(LuaString("return { reduce = function() end }"))
  /// ```
  public func evaluateKeepingResult(
    _ source: LuaString, chunkName: String = "eval", in sandbox: LuaSandbox? = nil
  ) throws(LuaError) -> LuaReference? {
    let chunk = try load(source, chunkName: chunkName, in: sandbox)
    return try invoke(chunk, arguments: [], results: 1) { (first) -> LuaReference? in
      lua_type(L, first) == LUA_TNIL ? nil : makeReference(at: first, L)
    }
  }

  /// The fields of the table behind `table` whose keys are strings, each kept in Lua (a handle
  /// on the value), read raw (no `__index`, no `__pairs`); nil when it is no table. Its other
  /// keys are left out.
  ///
  /// ```swift
  /// if let fields = try vm.stringKeyedFields(of: module), let reduce = fields["reduce"] {
  ///   print(reduce.typeName)  // "function"
  /// }
  /// ```
  public func stringKeyedFields(
    of table: LuaReference
  ) throws(LuaError) -> [LuaString: LuaReference]? {
    drainReleases()
    return try stack.guarded { () throws(LuaError) -> [LuaString: LuaReference]? in
      guard stack.reserve(4) else {
        throw .runtime(message: "stack overflow (reading a table's fields)", traceback: "")
      }
      try stack.push(table, in: self)
      guard lua_type(L, -1) == LUA_TTABLE else { return nil }
      var fields: [LuaString: LuaReference] = [:]
      lua_pushnil(L)
      while lua_next(L, -2) != 0 {
        if lua_type(L, -2) == LUA_TSTRING {
          let key = stack.withBytes(at: -2) { LuaString(bytes: Array($0)) }
          fields[key] = makeReference(at: -1, L)
        }
        lk_pop(L, 1)
      }
      return fields
    }
  }
}

extension LuaVM {
  /// Calls `function` with `arguments`, protected, and keeps each of its results in Lua: a
  /// handle on each (a nil one is a handle on nil), no snapshot taken.
  ///
  /// ```swift
  /// let results = try vm.callKeepingResults(function, arguments: [.value(1)])
  /// ```
  public func callKeepingResults(
    _ function: LuaReference, arguments: [LuaArgument]
  ) throws(LuaError) -> [LuaReference] {
    try invoke(function, arguments: arguments) { (first) -> [LuaReference] in
      stride(from: first, through: stack.top, by: 1).map { makeReference(at: $0, L) }
    }
  }
}

extension LuaVM {
  /// Whether the value behind `reference` has a metatable of its own (a table's or a full
  /// userdata's; strings share theirs, and are not asked about here).
  ///
  /// ```swift
  /// let hasOne = try vm.hasMetatable(module)
  /// ```
  public func hasMetatable(_ reference: LuaReference) throws(LuaError) -> Bool {
    drainReleases()
    return try stack.guarded { () throws(LuaError) -> Bool in
      try stack.push(reference, in: self)
      guard lua_type(L, -1) == LUA_TTABLE || lua_type(L, -1) == LUA_TUSERDATA else {
        return false
      }
      return lua_getmetatable(L, -1) != 0
    }
  }
}
