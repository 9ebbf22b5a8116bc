import CLua
import LuaSupport

/// `composable.json` against lua-cjson, the C JSON library a Lua user would reach for, on the
/// same 10,000-todo table in one Lua state: encoding it, and decoding its text. A ratio is our
/// time over cjson's: under 1 is faster. (Ours sorts object keys and checks UTF-8; cjson does
/// neither.)
enum JSONBenchmarks {
  static let setup = """
    local json, cjson = ...
    local todos = {}
    for i = 1, 10000 do
      todos[i] = {
        id = i, title = "Todo number " .. i, done = i % 3 == 0,
        tags = i % 2 == 0 and { "home", "urgent" } or { "work" },
      }
    end
    local state = { todos = todos }
    local text = cjson.encode(state)
    assert(#json.encode(state) == #text, "the two encoders disagree on the length")
    -- cjson reads every number as a float, so the two agree on values, not on subtypes.
    local ours, theirs = json.decode(text), cjson.decode(text)
    assert(#ours.todos == #theirs.todos and ours.todos[7].id == theirs.todos[7].id
      and ours.todos[7].tags[2] == theirs.todos[7].tags[2], "the decoders disagree")
    return
      function(n) for _ = 1, n do json.encode(state) end end,
      function(n) for _ = 1, n do cjson.encode(state) end end,
      function(n) for _ = 1, n do json.decode(text) end end,
      function(n) for _ = 1, n do cjson.decode(text) end end
    """

  static func run() throws -> [Figure] {
    guard let L = lk_newstate(0) else { throw BenchmarkError("no Lua state") }
    defer { lk_close(L) }
    luaL_openlibs(L)
    guard luaL_loadstring(L, setup) == LUA_OK else { throw BenchmarkError("setup") }
    lk_push_json_module(L)
    guard luaL_loadstring(L, "return require('cjson')") == LUA_OK,
      lua_pcallk(L, 0, 1, 0, 0, nil) == LUA_OK
    else { throw BenchmarkError("lua-cjson is missing: run scripts/install-deps") }
    guard lua_pcallk(L, 2, 4, 0, 0, nil) == LUA_OK else {
      throw BenchmarkError(String(cString: lua_tolstring(L, -1, nil)))
    }
    // luaL_ref pops the top: the last function returned comes first.
    let cjsonDecode = luaL_ref(L, LK_REGISTRYINDEX)
    let oursDecode = luaL_ref(L, LK_REGISTRYINDEX)
    let cjsonEncode = luaL_ref(L, LK_REGISTRYINDEX)
    let oursEncode = luaL_ref(L, LK_REGISTRYINDEX)
    func call(_ slot: Int32, _ n: Int) {
      lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(slot))
      lua_pushinteger(L, lua_Integer(n))
      precondition(lua_pcallk(L, 1, 0, 0, 0, nil) == LUA_OK, "a JSON benchmark failed")
    }
    let encode = interleavedNanoseconds(
      iterations: 5, rounds: 9, { call(oursEncode, $0) }, { call(cjsonEncode, $0) })
    let decode = interleavedNanoseconds(
      iterations: 5, rounds: 9, { call(oursDecode, $0) }, { call(cjsonDecode, $0) })
    return [
      Figure(name: "json.todos10k.encode_ms", value: encode.first / 1e6, unit: "ms"),
      Figure(name: "json.todos10k.cjson_encode_ms", value: encode.second / 1e6, unit: "ms"),
      Figure(
        name: "json.todos10k.encode_ratio_vs_cjson", value: encode.first / encode.second,
        unit: "x"),
      Figure(name: "json.todos10k.decode_ms", value: decode.first / 1e6, unit: "ms"),
      Figure(name: "json.todos10k.cjson_decode_ms", value: decode.second / 1e6, unit: "ms"),
      Figure(
        name: "json.todos10k.decode_ratio_vs_cjson", value: decode.first / decode.second,
        unit: "x"),
    ]
  }
}
