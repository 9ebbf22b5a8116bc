import ComposableLua
import Foundation
import LuaKit

/// What each path of a reducer's reads and writes costs through the state's proxies, against
/// the same Lua on plain tables: `proxy.<path>_ns` per operation, and its ratio. Each
/// action runs one path 1,000 times, so the cost of the action around it is divided away; an
/// action that does nothing is timed too and taken off.
enum ProxyBenchmarks {
  /// The paths, by action type, each 1,000 operations.
  static let reducer = """
    local N = 1000
    local paths = {
      empty = function(state) end,
      -- A field of the root, which holds no table: the VM reads it, no metamethod.
      read_flat = function(state) local x for _ = 1, N do x = state.count end end,
      -- A field of a nested table: the C __index.
      read_field = function(state)
        local nested, x = state.nested
        for _ = 1, N do x = nested.value end
      end,
      -- A nested table: the C __index hands out its proxy, kept from the last time.
      read_table = function(state) local x for _ = 1, N do x = state.nested end end,
      -- A write: journaled.
      write_field = function(state)
        local nested = state.nested
        for i = 1, N do nested.value = i end
      end,
      -- One step of pairs over a list of tables: the C next, each value as its proxy.
      pairs_step = function(state)
        for _ = 1, 10 do for _, item in pairs(state.list) do end end
      end,
      -- One step of ipairs: the C __index for each element.
      ipairs_step = function(state)
        for _ = 1, 10 do for _, item in ipairs(state.list) do end end
      end,
      -- A new table stored where a table was: adopted; its shape proved on the spot.
      write_table = function(state)
        local nested = state.nested
        for i = 1, N do nested.table = { value = i } end
      end,
      -- A new table holding a table: both adopted, the outer one's height noted.
      write_nested = function(state)
        local nested = state.nested
        for i = 1, N do nested.table = { value = i, inner = { value = i } } end
      end,
      -- Two elements of a list of records swapped: state tables moved within their list.
      swap_elements = function(state)
        local list = state.list
        for _ = 1, N / 2 do list[1], list[2] = list[2], list[1] end
      end,
      -- A list of records shared at a second place: the state is walked once, at the end.
      share_list = function(state)
        for _ = 1, N do state.alias = state.list end
      end,
      -- The length: the C __len.
      length = function(state) local x for _ = 1, N do x = #state.list end end,
    }
    return function(state, action) paths[action.type](state) end
    """

  static let kinds = [
    "read_flat", "read_field", "read_table", "write_field", "write_table", "write_nested",
    "swap_elements", "share_list", "pairs_step", "ipairs_step", "length",
  ]

  static func initialState(flat: Bool) -> LuaValue {
    if flat { return ["count": 0] }
    let list = (1...100).map { LuaValue.table(LuaTable(entries: ["id": .integer($0)])) }
    return [
      "count": 0, "nested": ["value": 1, "table": ["value": 0]],
      "list": .table(LuaTable(array: list)),
    ]
  }

  static func run() throws -> [Figure] {
    let limits = LuaLimits(memory: nil, instructions: nil)
    let source = "(function() \(reducer) end)()"
    func feature(flat: Bool) throws -> LuaFeature {
      try LuaFeature(
        source: "local reduce = \(source) return { reduce = reduce }", file: "paths.lua",
        state: initialState(flat: flat), limits: limits)
    }
    let flat = try feature(flat: true), nested = try feature(flat: false)
    let vm = try LuaVM(limits: limits)
    let plainReduce = try vm.load("return " + source, chunkName: "plain")
    let plainFlat = try vm.reference(to: initialState(flat: true))
    let plainNested = try vm.reference(to: initialState(flat: false))
    let function = try vm.call(plainReduce)[0]

    let calls = 300
    func ours(_ type: String) throws -> Double {
      let feature = type == "read_flat" ? flat : nested
      let action: LuaValue = ["type": .string(LuaString(type))]
      return try nanosecondsPerIteration(iterations: calls) { count in
        for _ in 0..<count {
          try feature.step(action)
        }
      }
    }
    func plain(_ type: String) throws -> Double {
      guard case let .function(reference) = function else { throw BenchmarkError("no function") }
      let state = type == "read_flat" ? plainFlat : plainNested
      let action: LuaValue = ["type": .string(LuaString(type))]
      return try nanosecondsPerIteration(iterations: calls) { count in
        for _ in 0..<count {
          _ = try vm.call(reference, arguments: [.reference(state), .value(action)])
        }
      }
    }
    let ourEmpty = try ours("empty"), plainEmpty = try plain("empty")
    var figures: [Figure] = []
    for kind in kinds {
      let our = max(0, try ours(kind) - ourEmpty) / 1000
      let theirs = max(0.001, try plain(kind) - plainEmpty) / 1000
      figures.append(Figure(name: "proxy.\(kind)_ns", value: our, unit: "ns"))
      figures.append(Figure(name: "proxy.\(kind)_plain_ns", value: theirs, unit: "ns"))
      figures.append(Figure(name: "proxy.\(kind)_ratio", value: our / theirs, unit: "x"))
    }
    return figures
  }
}
