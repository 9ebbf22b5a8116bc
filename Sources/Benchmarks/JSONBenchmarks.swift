import CLua
import LuaSupport

/// `composable.json` against lua-cjson, the C JSON library a Lua user would reach for, on the
/// same 10,000-todo table: encoding it, and decoding its text. Ours runs in a Lua state here;
/// cjson in `lua5.4` (PlainLuaWorker: a C module cannot load into this process), the two timed
/// in alternating rounds on one clock. A ratio is our time over cjson's: under 1 is faster.
/// (Ours sorts object keys and checks UTF-8; cjson does neither.)
enum JSONBenchmarks {
  /// Makes the table, and returns the jobs and the length of the encoded text.
  static func setup(_ library: String) -> String {
    """
    local json = \(library)
    local todos = {}
    for i = 1, 10000 do
      todos[i] = {
        id = i, title = "Todo number " .. i, done = i % 3 == 0,
        tags = i % 2 == 0 and { "home", "urgent" } or { "work" },
      }
    end
    local state = { todos = todos }
    local text = json.encode(state)
    local back = json.decode(text)
    assert(#back.todos == 10000 and back.todos[7].id == 7 and back.todos[8].tags[2] == "urgent",
      "the decoder lost the table")
    return {
      encode = function(n) for _ = 1, n do json.encode(state) end end,
      decode = function(n) for _ = 1, n do json.decode(text) end end,
    }, #text
    """
  }

  static func run() throws -> [Figure] {
    guard let L = lk_newstate(0) else { throw BenchmarkError("no Lua state") }
    defer { lk_close(L) }
    luaL_openlibs(L)
    guard luaL_loadstring(L, setup("...")) == LUA_OK else { throw BenchmarkError("setup") }
    lk_push_json_module(L)
    guard lua_pcallk(L, 1, 2, 0, 0, nil) == LUA_OK else {
      throw BenchmarkError(String(cString: lua_tolstring(L, -1, nil)))
    }
    let oursLength = Int(lua_tointegerx(L, -1, nil))
    lua_settop(L, -2)
    let cjson = try PlainLuaWorker(setup: setup("require('cjson')"))
    // Both write the same characters, in another order: the same length.
    guard cjson.greeting == String(oursLength) else {
      throw BenchmarkError(
        "the encoders disagree on the length: \(oursLength) against "
          + cjson.greeting)
    }
    func call(_ job: String, _ n: Int) {
      lua_getfield(L, -1, job)
      lua_pushinteger(L, lua_Integer(n))
      precondition(lua_pcallk(L, 1, 0, 0, 0, nil) == LUA_OK, "a JSON benchmark failed")
    }
    let encode = try interleavedNanoseconds(
      iterations: 5, rounds: 9, { call("encode", $0) }, { try cjson.run("encode", $0) })
    let decode = try interleavedNanoseconds(
      iterations: 5, rounds: 9, { call("decode", $0) }, { try cjson.run("decode", $0) })
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
