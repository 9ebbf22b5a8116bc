import CLua
import Composable
import ComposableLua
import Foundation
import LuaKit
import LuaSupport

/// Against the same work done in plain mutable Lua, with no store (issue 17): a toggle, the
/// memory of a large state after an action touched all of it, and two stores on two cores.
enum CloseToPlainBenchmarks {
  /// The toggle of `LuaFeatureBenchmarks.todos`, as a plain Lua function.
  static let plainToggle = """
    return function(state, action)
      if action.type == "toggle" then
        local todo = state.todos[action.id]
        todo.done = not todo.done
      end
    end
    """

  /// Nanoseconds per call of the plain toggle on `count` todos keyed by id, from Swift through
  /// the raw C API, with a fresh action table each call (as the counter's floor).
  static func plainToggleNanoseconds(count: Int, iterations: Int) throws -> Double {
    try LuaFloorBenchmarks.plainNanosecondsPerCall(
      reducer: plainToggle, iterations: iterations,
      pushState: { L in
        lua_createtable(L, 0, 1)
        lua_createtable(L, Int32(count), 0)
        for id in 1...count {
          lua_createtable(L, 0, 3)
          lua_pushinteger(L, lua_Integer(id))
          lua_setfield(L, -2, "id")
          lua_pushstring(L, "Todo \(id)")
          lua_setfield(L, -2, "title")
          lua_pushboolean(L, 0)
          lua_setfield(L, -2, "done")
          lua_rawseti(L, -2, lua_Integer(id))
        }
        lua_setfield(L, -2, "todos")
      },
      pushAction: { L, index in
        lua_createtable(L, 0, 2)
        lua_pushstring(L, "toggle")
        lua_setfield(L, -2, "type")
        lua_pushinteger(L, lua_Integer(index % count + 1))
        lua_setfield(L, -2, "id")
      })
  }

  /// `initial_state()` of 100,000 todos, and an action that touches every one.
  static let todos100k = """
    return {
      initial_state = function()
        local todos = {}
        for id = 1, 100000 do todos[id] = { id = id, title = "Todo " .. id, done = false } end
        return { todos = todos }
      end,
      reduce = function(state, action)
        if action.type == "touch_all" then
          for _, todo in ipairs(state.todos) do todo.done = not todo.done end
        elseif action.type == "read" then  -- todos first to last: each keeps its proxy
          local x
          for id = action.first, action.last do x = state.todos[id].done end
        end
      end,
    }
    """

  /// The same in plain Lua: the state made, every todo touched, a full collection, and what
  /// the state holds.
  static let plainTodos100k = """
    local todos = {}
    for id = 1, 100000 do todos[id] = { id = id, title = "Todo " .. id, done = false } end
    local state = { todos = todos }
    for _, todo in ipairs(state.todos) do todo.done = not todo.done end
    collectgarbage("collect")
    collectgarbage("collect")
    return collectgarbage("count") * 1024, state
    """

  /// The toggle as a typed action: pushed field by field, names interned.
  enum TodosAction: Codable, Sendable, LuaActionConvertible {
    case toggle(id: Int)

    static let toggleName: LuaName = "toggle", idName: LuaName = "id"
    var luaType: LuaName { Self.toggleName }
    func writeFields(to action: inout LuaTableWriter) throws(LuaError) {
      switch self {
      case let .toggle(id): try action.set(Self.idName, id)
      }
    }
  }

  static func run() async throws -> [Figure] {
    // The toggle, rounds side by side with the store's: typed actions, and `LuaValue` ones.
    let unlimited = LuaLimits(memory: nil, instructions: 10_000_000)
    func makeFeature() throws -> LuaFeature {
      try LuaFeature(
        source: LuaFeatureBenchmarks.todos, file: "todos.lua",
        state: LuaFeatureBenchmarks.todosState(count: 10), limits: unlimited)
    }
    let small = try makeFeature(), typedFeature = try makeFeature()
    let store = Store(
      initialState: LuaFeatureHandle(feature: small),
      reducer: LuaFeatureReducer<LuaFeatureHandle>(feature: small, dependencies: .live))
    let typedStore = Store(
      initialState: LuaFeatureHandle(feature: typedFeature),
      reducer: LuaFeatureCodableReducer<LuaFeatureHandle, TodosAction>(
        feature: typedFeature, dependencies: .live))
    let iterations = 200_000
    var values: [Double] = [], typed: [Double] = [], plain: [Double] = []
    for _ in 0..<7 {
      plain.append(try plainToggleNanoseconds(count: 10, iterations: iterations))
      typed.append(
        await typedStore.withIsolation { store in
          StoreBenchmarks.time(iterations: iterations) {
            for index in 0..<iterations { store.send(.toggle(id: index % 10 + 1)) }
          }
        })
      values.append(
        await store.withIsolation { store in
          StoreBenchmarks.time(iterations: iterations) {
            for index in 0..<iterations {
              store.send(["type": "toggle", "id": .integer(index % 10 + 1)])
            }
          }
        })
    }
    let toggleRatio = StoreBenchmarks.median(zip(typed, plain).map { $0 / $1 })
    let valueRatio = StoreBenchmarks.median(zip(values, plain).map { $0 / $1 })

    // Memory: our feature's VM after the action, against plain Lua.
    let feature = try LuaFeature(
      source: todos100k, file: "todos.lua", limits: LuaLimits(memory: nil, instructions: nil))
    _ = try feature.step(["type": "touch_all"])
    let ourBytes = Double(feature.memoryInUse())
    let vm = try LuaVM(limits: LuaLimits(memory: nil, instructions: nil))
    let plainBytes = try vm.evaluate(plainTodos100k)[0].doubleValue ?? 1
    // Every todo read once, by actions that each read fewer than a sweep's count: each real
    // table keeps the proxy made for it (what a feature that reads its whole state, a screen
    // at a time, holds).
    let proxied = try LuaFeature(
      source: todos100k, file: "todos.lua", limits: LuaLimits(memory: nil, instructions: nil))
    for first in stride(from: 1, through: 100_000, by: 1_000) {
      _ = try proxied.step([
        "type": "read", "first": .integer(first), "last": .integer(first + 999),
      ])
    }
    let proxiedBytes = Double(proxied.memoryInUse())

    return [
      Figure(name: "lua.todos.toggle10_plain_ns", value: StoreBenchmarks.median(plain), unit: "ns"),
      Figure(name: "lua.todos.toggle10_typed_ns", value: StoreBenchmarks.median(typed), unit: "ns"),
      Figure(name: "lua.todos.toggle10_ratio_vs_plain", value: toggleRatio, unit: "x"),
      Figure(name: "lua.todos.toggle10_luavalue_ratio_vs_plain", value: valueRatio, unit: "x"),
      Figure(name: "memory.todos100k.ours_mb", value: ourBytes / 1_048_576, unit: "MB"),
      Figure(name: "memory.todos100k.plain_mb", value: plainBytes / 1_048_576, unit: "MB"),
      Figure(name: "memory.todos100k.ratio_vs_plain", value: ourBytes / plainBytes, unit: "x"),
      Figure(
        name: "memory.todos100k.proxied_ratio_vs_plain", value: proxiedBytes / plainBytes,
        unit: "x"),
    ] + (try await scaling())
  }

  /// Two Lua counter stores sending at once, on the two cores, against one alone: the
  /// aggregate rate over one store's. Beside it, in the same rounds, the same for plain Lua
  /// counters called through the raw C API on two threads: what this machine's two cores give
  /// at the time (a shared host's second core comes and goes). Medians of 9 rounds.
  static func scaling() async throws -> [Figure] {
    let iterations = 400_000
    let unlimited = LuaLimits(memory: nil, instructions: 10_000_000)
    func makeStore() throws -> Store<LuaFeatureHandle, LuaValue> {
      let feature = try LuaFeature(
        source: LuaFeatureBenchmarks.counter, file: "counter.lua", limits: unlimited)
      return Store(
        initialState: LuaFeatureHandle(feature: feature),
        reducer: LuaFeatureReducer<LuaFeatureHandle>(feature: feature, dependencies: .live))
    }
    let first = try makeStore(), second = try makeStore()
    @Sendable func sendAll(_ store: Store<LuaFeatureHandle, LuaValue>) async {
      await store.withIsolation { store in
        let increment: LuaValue = ["type": "increment"]
        for _ in 0..<iterations { store.send(increment) }
      }
    }
    var ratios: [Double] = [], raw: [Double] = []
    for _ in 0..<9 {
      var start = ContinuousClock.now
      await sendAll(first)
      let alone = Seconds.of(ContinuousClock.now - start)
      start = ContinuousClock.now
      async let a: Void = sendAll(first)
      async let b: Void = sendAll(second)
      _ = await (a, b)
      ratios.append(2 * alone / Seconds.of(ContinuousClock.now - start))

      raw.append(plainScaling(iterations: 4 * iterations))
    }
    let ours = StoreBenchmarks.median(ratios), plain = StoreBenchmarks.median(raw)
    return [
      Figure(name: "store.scaling2_ratio", value: ours, unit: "x"),
      Figure(name: "store.scaling2_raw_threads_ratio", value: plain, unit: "x"),
    ]
  }

  /// Two fresh counter stores, each sending `actions` at once (a diagnostic).
  static func sendTogether(actions: Int) async throws {
    func makeStore() throws -> Store<LuaFeatureHandle, LuaValue> {
      let feature = try LuaFeature(
        source: LuaFeatureBenchmarks.counter, file: "counter.lua",
        limits: LuaLimits(memory: nil, instructions: 10_000_000))
      return Store(
        initialState: LuaFeatureHandle(feature: feature),
        reducer: LuaFeatureReducer<LuaFeatureHandle>(feature: feature, dependencies: .live))
    }
    @Sendable func sendAll(_ store: Store<LuaFeatureHandle, LuaValue>) async {
      await store.withIsolation { store in
        let increment: LuaValue = ["type": "increment"]
        for _ in 0..<actions { store.send(increment) }
      }
    }
    let first = try makeStore(), second = try makeStore()
    async let a: Void = sendAll(first)
    async let b: Void = sendAll(second)
    _ = await (a, b)
  }

  /// One round of the plain counter alone, then on two threads at once: the aggregate rate
  /// over one thread's.
  static func plainScaling(iterations: Int) -> Double {
    let run: @Sendable () -> Void = {
      _ = try? LuaFloorBenchmarks.nanosecondsPerCall(iterations: iterations)
    }
    var start = ContinuousClock.now
    run()
    let alone = Seconds.of(ContinuousClock.now - start)
    let done = DispatchGroup()
    start = ContinuousClock.now
    for _ in 0..<2 {
      done.enter()
      Thread {
        run()
        done.leave()
      }.start()
    }
    done.wait()
    return 2 * alone / Seconds.of(ContinuousClock.now - start)
  }
}
