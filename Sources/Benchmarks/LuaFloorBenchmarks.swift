import Foundation
import CLua
import LuaSupport

/// The floor for everything above it: a Lua counter reducer called from Swift through the raw
/// C API, with a fresh action table each call. Nothing of ours is on this path.
enum LuaFloorBenchmarks {
  static let reducer = """
    return function(state, action)
      if action.type == "increment" then
        state.count = state.count + 1
      elseif action.type == "decrement" then
        state.count = state.count - 1
      end
    end
    """

  static func run() throws -> [Figure] {
    var samples: [Double] = []
    for _ in 0..<5 { samples.append(try nanosecondsPerCall(iterations: 2_000_000)) }
    return [Figure(name: "lua.counter.floor_ns", value: samples.sorted()[2], unit: "ns")]
  }

  /// One timed run of `iterations` calls, in a fresh state.
  static func nanosecondsPerCall(iterations: Int) throws -> Double {
    try plainNanosecondsPerCall(
      reducer: reducer, iterations: iterations,
      pushState: { L in
        lua_createtable(L, 0, 1)
        lua_pushinteger(L, 0)
        lua_setfield(L, -2, "count")
      },
      pushAction: { L, _ in
        lua_createtable(L, 0, 1)
        lua_pushstring(L, "increment")
        lua_setfield(L, -2, "type")
      },
      check: { L in
        lua_getfield(L, -1, "count")
        precondition(lua_tointegerx(L, -1, nil) == iterations, "the reducer did not count")
      })
  }

  /// Nanoseconds per call of `reducer` (a chunk that returns `function(state, action)`) from
  /// Swift through the raw C API, in a fresh state: the state `pushState` pushes, a fresh
  /// action from `pushAction` (given the call's index) each call. `check` gets the state on
  /// the stack afterwards.
  @inline(__always)  // the closures inlined: the floor pays for no call through them
  static func plainNanosecondsPerCall(
    reducer: String, iterations: Int, pushState: (OpaquePointer) -> Void,
    pushAction: (OpaquePointer, Int) -> Void, check: (OpaquePointer) -> Void = { _ in }
  ) throws -> Double {
    let L = luaL_newstate()!
    defer { lua_close(L) }
    luaL_openlibs(L)
    guard luaL_loadstring(L, reducer) == LUA_OK, lua_pcallk(L, 0, 1, 0, 0, nil) == LUA_OK else {
      throw BenchmarkError("the reducer did not load")
    }
    let reduce = luaL_ref(L, LK_REGISTRYINDEX)
    pushState(L)
    let state = luaL_ref(L, LK_REGISTRYINDEX)
    let start = DispatchTime.now().uptimeNanoseconds
    for index in 0..<iterations {
      lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(reduce))
      lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(state))
      pushAction(L, index)
      guard lua_pcallk(L, 2, 0, 0, 0, nil) == LUA_OK else { throw BenchmarkError("reduce failed") }
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations)
    lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(state))
    check(L)
    return elapsed
  }
}
