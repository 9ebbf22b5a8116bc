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

  /// The JSON path: JSONEncoder, then lua-cjson's decode into a table and encode back (in
  /// `lua5.4`, PlainLuaWorker: a C module cannot load into this process), then JSONDecoder.
  /// An iteration is the Swift half here and the Lua half there, each timed on this clock.
  final class JSONPath {
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()
    let cjson: PlainLuaWorker
    /// What cjson's encode wrote back, which JSONDecoder reads.
    let returned: Data
    let directory: URL

    init() throws {
      directory = try BenchmarkFiles.makeScratchDirectory("marshal")
      let sent = directory.appendingPathComponent("sent.json")
      let back = directory.appendingPathComponent("back.json")
      try encoder.encode(state).write(to: sent)
      cjson = try PlainLuaWorker(
        setup: """
          local cjson = require("cjson")
          local file = assert(io.open("\(sent.path)", "rb"))
          local text = file:read("a")
          file:close()
          local out = assert(io.open("\(back.path)", "wb"))
          out:write(cjson.encode(cjson.decode(text)))
          out:close()
          return {
            -- Swift -> Lua: the JSON into a table that stays in Lua, as state would; and back.
            roundtrip = function(n)
              for _ = 1, n do cjson.encode(cjson.decode(text)) end
            end,
          }
          """)
      returned = try Data(contentsOf: back)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    @discardableResult
    func roundTrip(times: Int = 1) throws -> State {
      var back = State(todos: [])
      for _ in 0..<times {
        _ = try encoder.encode(state)
        back = try decoder.decode(State.self, from: returned)
        precondition(back.todos.count == state.todos.count, "the JSON round trip lost todos")
      }
      try cjson.run("roundtrip", times)
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
