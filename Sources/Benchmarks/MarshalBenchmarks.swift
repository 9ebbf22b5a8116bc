import CLua
import LuaSupport
import Foundation
import LuaKit

/// Marshalling a 10,000-todo state Swift -> Lua -> Swift: our encoder and decoder against what
/// a user would otherwise write, JSONEncoder -> lua-cjson decode -> cjson encode -> JSONDecoder.
enum MarshalBenchmarks {
  struct Todo: Codable, Equatable {
    var id: Int
    var title: String
    var done: Bool
    var tags: [String]
  }

  struct State: Codable, Equatable {
    var todos: [Todo]
  }

  static let state = State(
    todos: (0..<10_000).map { index in
      Todo(
        id: index, title: "Todo number \(index)", done: index % 3 == 0,
        tags: index % 2 == 0 ? ["home", "urgent"] : ["work"])
    })

  static func run() throws -> [Figure] {
    let ours = try OursPath()
    let json = try JSONPath()
    // Both paths must give the state back unchanged; checked once, outside the timing.
    let (oursBack, jsonBack) = (try ours.roundTrip(), try json.roundTrip())
    precondition(oursBack == state, "our round trip changed the state")
    precondition(jsonBack == state, "the JSON round trip changed the state")
    let (oursNanoseconds, jsonNanoseconds) = try interleavedNanoseconds(
      iterations: 3, rounds: 15, { try ours.roundTrip(times: $0) },
      { try json.roundTrip(times: $0) })
    return [
      Figure(name: "marshal.todos10k.ours_ms", value: oursNanoseconds / 1e6, unit: "ms"),
      Figure(name: "marshal.todos10k.json_ms", value: jsonNanoseconds / 1e6, unit: "ms"),
      Figure(
        name: "marshal.todos10k.ratio_vs_json", value: jsonNanoseconds / oursNanoseconds, unit: "x"),
    ]
  }

  /// LuaEncoder into the VM, LuaDecoder back out.
  final class OursPath {
    let vm: LuaVM

    init() throws { vm = try LuaVM(limits: .unlimited) }

    @discardableResult
    func roundTrip(times: Int = 1) throws -> State {
      var back = State(todos: [])
      for _ in 0..<times {
        let reference = try LuaEncoder().encode(state, in: vm, rootName: "state")
        back = try LuaDecoder().decode(State.self, from: reference, in: vm, rootName: "state")
        precondition(back.todos.count == state.todos.count, "our round trip lost todos")
      }
      return back
    }
  }

  /// The JSON path, through the raw C API so that nothing of ours slows it down.
  final class JSONPath {
    let L: OpaquePointer
    let decodeFunction: Int32
    let encodeFunction: Int32
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()

    init() throws {
      L = luaL_newstate()!
      luaL_openlibs(L)
      let setup = "local cjson = require('cjson') return cjson.decode, cjson.encode"
      guard luaL_loadstring(L, setup) == LUA_OK, lua_pcallk(L, 0, 2, 0, 0, nil) == LUA_OK else {
        throw BenchmarkError("lua-cjson is missing: run scripts/install-deps")
      }
      encodeFunction = luaL_ref(L, LK_REGISTRYINDEX)
      decodeFunction = luaL_ref(L, LK_REGISTRYINDEX)
    }

    deinit { lua_close(L) }

    @discardableResult
    func roundTrip(times: Int = 1) throws -> State {
      var back = State(todos: [])
      for _ in 0..<times {
        let json = try encoder.encode(state)
        // Swift -> Lua: decode the JSON into a table that stays in Lua, as state would.
        lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(decodeFunction))
        json.withUnsafeBytes { _ = lua_pushlstring(L, $0.baseAddress, $0.count) }
        guard lua_pcallk(L, 1, 1, 0, 0, nil) == LUA_OK else { throw BenchmarkError("cjson.decode") }
        let table = luaL_ref(L, LK_REGISTRYINDEX)
        // Lua -> Swift: encode the table and decode the JSON.
        lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(encodeFunction))
        lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(table))
        guard lua_pcallk(L, 1, 1, 0, 0, nil) == LUA_OK else { throw BenchmarkError("cjson.encode") }
        var length = 0
        let bytes = lua_tolstring(L, -1, &length)!
        back = try decoder.decode(State.self, from: Data(bytes: bytes, count: length))
        precondition(back.todos.count == state.todos.count, "the JSON round trip lost todos")
        lua_settop(L, 0)
        luaL_unref(L, LK_REGISTRYINDEX, table)
      }
      return back
    }
  }
}

struct BenchmarkError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

extension MarshalBenchmarks {
  /// Each piece of both paths timed alone, to see where the time goes:
  /// `.build/release/Benchmarks pieces`.
  static func pieces() throws {
    let json = try encoderForPieces.encode(state)
    let only = ProcessInfo.processInfo.environment["PIECES"]
    func time(_ name: String, _ body: () throws -> Void) rethrows {
      if let only, !name.hasPrefix(only) { return }
      let ns = try nanosecondsPerIteration(iterations: 5, rounds: 9) { n in
        for _ in 0..<n { try body() }
      }
      print("\(name): \(String(format: "%.2f", ns / 1e6)) ms")
    }
    try time("JSONEncoder") { _ = try encoderForPieces.encode(state) }
    try time("JSONDecoder") { _ = try JSONDecoder().decode(State.self, from: json) }
    let vm = try LuaVM(limits: .unlimited)
    let reference = try LuaEncoder().encode(state, in: vm, rootName: "state")
    try time("LuaEncoder") { _ = try LuaEncoder().encode(state, in: vm, rootName: "state") }
    try time("LuaDecoder") { _ = try LuaDecoder().decode(State.self, from: reference, in: vm) }
    let ours = try OursPath()
    try time("LuaRoundTrip") { try ours.roundTrip() }
  }

  static let encoderForPieces = JSONEncoder()
}
