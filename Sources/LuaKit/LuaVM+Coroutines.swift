import CLua
import LuaSupport

/// What a coroutine did when resumed: yielded values (it can be resumed again), or returned.
public enum LuaResumption: Equatable, Sendable {
  /// The coroutine yielded these values; it can be resumed again.
  case yielded([LuaValue])
  /// The coroutine's function returned these values; it is dead now.
  case returned([LuaValue])
}

extension LuaVM {
  /// A new coroutine that will run `function`. Keep the handle to resume it; drop it and the
  /// coroutine is collected.
  public func makeCoroutine(_ function: LuaReference) throws(LuaError) -> LuaReference {
    drainReleases()
    return try stack.guarded { () throws(LuaError) -> LuaReference in
      guard let thread = lua_newthread(L) else { throw .memoryLimit(limit: limits.memory ?? 0) }
      try stack.push(function, in: self)
      lua_xmove(L, thread, 1)
      return makeReference(at: -1, L)
    }
  }

  /// Resumes `coroutine` with `arguments` (the results of what it yielded, or the function's
  /// arguments the first time), under the VM's limits. An error inside it is thrown with the
  /// coroutine's traceback; the coroutine is dead afterwards.
  public func resume(
    _ coroutine: LuaReference, with arguments: [LuaValue] = []
  ) throws(LuaError) -> LuaResumption {
    drainReleases()
    return try stack.guarded { () throws(LuaError) -> LuaResumption in
      try stack.push(coroutine, in: self)
      guard let thread = lua_tothread(L, -1) else {
        throw .conversion(
          path: "coroutine", message: "expected a coroutine, got \(coroutine.typeName)")
      }
      let status = lua_status(thread)
      guard status == LUA_YIELD || (status == LUA_OK && lua_gettop(thread) > 0) else {
        throw .runtime(message: "cannot resume a dead coroutine", traceback: "")
      }
      let coroutineStack = LuaStack(thread)
      guard coroutineStack.reserve(Int32(arguments.count) + 1) else {
        throw .runtime(message: "too many arguments to resume", traceback: "")
      }
      for argument in arguments { try coroutineStack.push(argument, in: self) }
      var count: Int32 = 0
      let result = lk_resume(L, thread, Int32(arguments.count), &count)
      guard result == LUA_OK || result == LUA_YIELD else { throw takeError(status: result) }
      var values: [LuaValue] = []
      let first = coroutineStack.top - count + 1
      for index in stride(from: first, through: coroutineStack.top, by: 1) {
        values.append(try coroutineStack.value(at: index, in: self))
      }
      lua_settop(thread, first - 1)
      return result == LUA_YIELD ? .yielded(values) : .returned(values)
    }
  }

  /// Closes `coroutine`, suspended or failed, under the VM's limits: its pending to-be-closed
  /// variables are closed, as `coroutine.close` closes them. An error in a `__close` handler is
  /// thrown; the coroutine is dead afterwards either way.
  public func close(_ coroutine: LuaReference) throws(LuaError) {
    drainReleases()
    try stack.guarded { () throws(LuaError) in
      try stack.push(coroutine, in: self)
      guard let thread = lua_tothread(L, -1) else {
        throw .conversion(
          path: "coroutine", message: "expected a coroutine, got \(coroutine.typeName)")
      }
      let status = lk_close_coroutine(L, thread)
      guard status == LUA_OK else { throw takeError(status: status) }
    }
  }
}
