import CLua
import Composable
import ComposableLua
import Foundation
import LuaKit
import LuaSupport

/// Heavy reducers (issue 31): each workload through the store, with `LuaValue` and typed
/// actions, against the same function on plain Lua tables, and the Redux way (immutable) for
/// context, in alternating rounds in one run. All sides run the same steps and must end in
/// equal states.
enum HeavyBenchmarks {
  /// The action that runs one step: `{ type = "step", i = i }`, pushed field by field.
  enum HeavyAction: Codable, Sendable, LuaActionConvertible {
    case step(i: Int)

    static let stepName: LuaName = "step", iName: LuaName = "i"
    var luaType: LuaName { Self.stepName }
    func writeFields(to action: inout LuaTableWriter) throws(LuaError) {
      switch self {
      case let .step(i): try action.set(Self.iName, i)
      }
    }
  }

  static let rounds = 5

  static func run() async throws -> [Figure] {
    var figures: [Figure] = []
    for workload in HeavyWorkload.all {
      figures += try await run(workload)
    }
    return figures
  }

  /// The workload as a feature: its state `setup()`, each action `{ type = "step", i = i }`
  /// one `step`.
  static func feature(_ workload: HeavyWorkload) throws -> LuaFeature {
    try LuaFeature(
      source: """
        local W = (function() \(workload.source) end)()
        return {
          initial_state = W.setup,
          reduce = function(state, action)
            if action.type == "step" then W.step(state, action.i) end
          end,
        }
        """, file: "\(workload.name).lua", limits: LuaLimits(memory: nil, instructions: nil))
  }

  static func run(_ workload: HeavyWorkload) async throws -> [Figure] {
    let plain = try PlainHeavyLua(workload)
    let valueFeature = try feature(workload), typedFeature = try feature(workload)
    let valueStore = Store(
      initialState: LuaFeatureHandle(feature: valueFeature),
      reducer: LuaFeatureReducer<LuaFeatureHandle>(feature: valueFeature, dependencies: .live))
    let typedStore = Store(
      initialState: LuaFeatureHandle(feature: typedFeature),
      reducer: LuaFeatureCodableReducer<LuaFeatureHandle, HeavyAction>(
        feature: typedFeature, dependencies: .live))
    let steps = workload.steps
    var plainTimes: [Double] = [], valueTimes: [Double] = [], typedTimes: [Double] = []
    var immutableTimes: [Double] = []
    // One warm-up round, then the timed ones; every side runs the same steps, 1, 2, ...
    for round in 0...rounds {
      let first = round * steps + 1
      let plainTime = try plain.time(.mutable, steps: steps, from: first)
      // Made before the clock starts, as the counter's action is: what is timed is the send of
      // an action the app holds, not Swift building and freeing a dictionary for each (about a
      // quarter of `nested1k`'s step when it was timed).
      let actions: [LuaValue] = (first..<(first + steps)).map {
        ["type": "step", "i": .integer($0)]
      }
      let valueTime = await valueStore.withIsolation { store in
        StoreBenchmarks.time(iterations: steps) {
          for action in actions { store.send(action) }
        }
      }
      let typedTime = await typedStore.withIsolation { store in
        StoreBenchmarks.time(iterations: steps) {
          for i in first..<(first + steps) { store.send(.step(i: i)) }
        }
      }
      let immutableTime = try plain.time(.immutable, steps: steps, from: first)
      guard round > 0 else { continue }
      plainTimes.append(plainTime)
      valueTimes.append(valueTime)
      typedTimes.append(typedTime)
      immutableTimes.append(immutableTime)
    }
    // Every side ends where plain Lua does.
    let expected = try plain.canon(.mutable)
    for (side, text) in [
      ("through the store (LuaValue)", try canon(valueFeature)),
      ("through the store (typed)", try canon(typedFeature)),
      ("immutable", try plain.canon(.immutable)),
    ] where text != expected {
      throw BenchmarkError("heavy.\(workload.name): the state \(side) is not plain Lua's")
    }
    func ratio(_ times: [Double]) -> Double {
      StoreBenchmarks.median(zip(times, plainTimes).map { $0 / $1 })
    }
    let name = "heavy.\(workload.name)"
    return [
      Figure(
        name: "\(name).plain_us", value: StoreBenchmarks.median(plainTimes) / 1000, unit: "µs"),
      Figure(name: "\(name).ratio_vs_plain", value: ratio(valueTimes), unit: "x"),
      Figure(name: "\(name).typed_ratio_vs_plain", value: ratio(typedTimes), unit: "x"),
      Figure(name: "\(name).immutable_ratio_vs_plain", value: ratio(immutableTimes), unit: "x"),
    ]
  }

  /// The feature's state as `HeavyWorkload.canon` writes it.
  static func canon(_ feature: LuaFeature) throws -> String {
    let text = try feature.evaluate(
      "(function() \(HeavyWorkload.canon) return canon(state) end)()"
    ).first?.stringValue
    guard let text else { throw BenchmarkError("the state could not be read") }
    return text
  }
}

/// A workload on plain Lua tables in a `lua_State` of its own (Debian's Lua, its standard
/// libraries, nothing of ours), called from Swift through the raw C API with a fresh action
/// table each call, as the counter's floor is: mutably (`step`), and the Redux way on a state
/// of its own (`step_immutable`).
final class PlainHeavyLua {
  enum Side { case mutable, immutable }

  private let L: OpaquePointer
  private let reduce: [Side: Int32]
  private let target: [Side: Int32]
  private let canonFunction: Int32

  init(_ workload: HeavyWorkload) throws {
    L = luaL_newstate()!
    luaL_openlibs(L)
    let chunk = """
      \(HeavyWorkload.canon)
      local W = (function() \(workload.source) end)()
      return function(state, action) W.step(state, action.i) end,
        function(holder, action) holder.state = W.step_immutable(holder.state, action.i) end,
        W.setup(), { state = W.setup() }, function(holder) return canon(holder.state) end
      """
    guard luaL_loadstring(L, chunk) == LUA_OK, lua_pcallk(L, 0, 5, 0, 0, nil) == LUA_OK else {
      let message = lua_tolstring(L, -1, nil).map { String(cString: $0) } ?? "?"
      lua_close(L)
      throw BenchmarkError("heavy.\(workload.name) did not load: \(message)")
    }
    canonFunction = luaL_ref(L, LK_REGISTRYINDEX)
    let holder = luaL_ref(L, LK_REGISTRYINDEX)
    let state = luaL_ref(L, LK_REGISTRYINDEX)
    let immutable = luaL_ref(L, LK_REGISTRYINDEX)
    let mutable = luaL_ref(L, LK_REGISTRYINDEX)
    reduce = [.mutable: mutable, .immutable: immutable]
    target = [.mutable: state, .immutable: holder]
    // The mutable side's state, read by `canon` through a holder as the immutable one's is.
    lua_createtable(L, 0, 1)
    lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(state))
    lua_setfield(L, -2, "state")
    mutableHolder = luaL_ref(L, LK_REGISTRYINDEX)
  }

  private var mutableHolder: Int32 = 0

  deinit { lua_close(L) }

  /// Nanoseconds per step of `steps` steps numbered from `first`.
  func time(_ side: Side, steps: Int, from first: Int) throws -> Double {
    let reduce = lua_Integer(reduce[side]!), target = lua_Integer(target[side]!)
    let start = DispatchTime.now().uptimeNanoseconds
    for i in first..<(first + steps) {
      lua_rawgeti(L, LK_REGISTRYINDEX, reduce)
      lua_rawgeti(L, LK_REGISTRYINDEX, target)
      lua_createtable(L, 0, 2)
      lua_pushstring(L, "step")
      lua_setfield(L, -2, "type")
      lua_pushinteger(L, lua_Integer(i))
      lua_setfield(L, -2, "i")
      guard lua_pcallk(L, 2, 0, 0, 0, nil) == LUA_OK else {
        throw BenchmarkError("a plain step failed")
      }
    }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(steps)
  }

  /// The state of `side`, as `HeavyWorkload.canon` writes it.
  func canon(_ side: Side) throws -> String {
    lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(canonFunction))
    lua_rawgeti(
      L, LK_REGISTRYINDEX, lua_Integer(side == .mutable ? mutableHolder : target[side]!))
    guard lua_pcallk(L, 1, 1, 0, 0, nil) == LUA_OK, let text = lua_tolstring(L, -1, nil) else {
      throw BenchmarkError("the plain state could not be read")
    }
    defer { lua_settop(L, -2) }
    return String(cString: text)
  }
}
