import ComposableLua
import LuaKit
import Testing

/// Once the budget or the time limit fires anywhere in an action, the action fails and rolls
/// back, whatever catches the error: a pcall, a coroutine the reducer resumes, a coroutine.wrap
/// it calls, a coroutine.close. The memory cap is Lua's own error, which Lua code may catch and
/// go on from (docs/transactions.md says why).
@Suite struct LimitStopTests {
  static let source = """
    local kept
    local function closing_loop()
      return setmetatable({}, { __close = function() while true do end end })
    end
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action)
        local t = action.type
        if t == "wrap" then
          pcall(coroutine.wrap(function() state.c = 3 while true do end end))
          state.d = 1
        elseif t == "resume" then
          local co = coroutine.create(function() state.c = 3 while true do end end)
          state.e = { coroutine.resume(co) }
          state.d = 1
        elseif t == "pcall" then
          state.c = 3
          pcall(function() while true do end end)
          state.d = 1
        elseif t == "xpcall" then
          state.c = 3
          xpcall(function() while true do end end, function() state.h = 1 return "handled" end)
          state.d = 1
        elseif t == "close" then
          local co = coroutine.create(function()
            local _ <close> = setmetatable({}, { __close = function() while true do end end })
            coroutine.yield()
          end)
          coroutine.resume(co)
          state.c = 3
          state.e = { coroutine.close(co) }
        elseif t == "charged" then
          -- Work done in C, caught: the stop stays.
          state.c = 3
          pcall(table.remove, setmetatable({}, { __len = function() return math.maxinteger end }), 1)
          state.d = 1
        elseif t == "memory" then
          state.c = 3
          local ok = pcall(function() local t = {} while true do t[#t + 1] = { 1, 2, 3 } end end)
          state.caught = not ok
        elseif t == "xpcall_loops" then
          -- The handler of the stop's error would run with hooks off: it is not called.
          state.c = 3
          xpcall(function() while true do end end, function() while true do end end)
          state.d = 1
        elseif t == "wrap_close" then
          -- The coroutine the stop killed is not closed: its __close would run with hooks off.
          state.c = 3
          pcall(coroutine.wrap(function()
            local _ <close> = closing_loop()
            while true do end
          end))
          state.d = 1
        elseif t == "keep" then
          kept = coroutine.create(function()
            local _ <close> = closing_loop()
            while true do end
          end)
          coroutine.resume(kept)
        elseif t == "close_kept" then
          state.closed = { coroutine.close(kept) }
        elseif t == "count" then
          state.n = state.n + 1
        end
      end,
    }
    """

  static func feature(_ limits: LuaLimits) throws -> LuaFeature {
    try LuaFeature(source: source, file: "stop.lua", limits: limits)
  }

  static func send(_ feature: LuaFeature, _ type: String) -> LuaError? {
    do {
      try feature.step(.string(LuaString(type)))
      return nil
    } catch {
      guard case let .reduce(_, error) = error else { return nil }
      return error
    }
  }

  @Test(arguments: [
    "wrap", "resume", "pcall", "xpcall", "close", "charged", "xpcall_loops", "wrap_close", "keep",
  ])
  func theBudgetEndsTheActionWhateverCatchesIt(_ action: String) throws {
    let feature = try Self.feature(LuaLimits(memory: 64 << 20, instructions: 100_000, seconds: 30))
    let error = Self.send(feature, action)
    guard case let .instructionLimit(limit, _, _)? = error else {
      Issue.record("\(action): expected the instruction limit, got \(String(describing: error))")
      return
    }
    #expect(limit == 100_000)
    #expect(try feature.state() == ["n": 0], "\(action): rolled back")
    #expect(Self.send(feature, "count") == nil)
    #expect(try feature.state() == ["n": 1], "the next action runs")
  }

  @Test(arguments: ["wrap", "pcall", "close", "xpcall_loops", "wrap_close", "keep"])
  func theTimeLimitEndsTheActionWhateverCatchesIt(_ action: String) throws {
    let feature = try Self.feature(LuaLimits(memory: 64 << 20, instructions: nil, seconds: 0.2))
    let error = Self.send(feature, action)
    guard case .timeLimit? = error else {
      Issue.record("\(action): expected the time limit, got \(String(describing: error))")
      return
    }
    #expect(try feature.state() == ["n": 0], "\(action): rolled back")
    #expect(Self.send(feature, "count") == nil)
  }

  /// A coroutine a stop killed, closed in a later action, answers as a dead coroutine does,
  /// without running its `__close` (which would run where no limit reaches).
  @Test(arguments: [
    LuaLimits(memory: 64 << 20, instructions: 100_000, seconds: 30),
    LuaLimits(memory: 64 << 20, instructions: nil, seconds: 0.2),
  ])
  func aCoroutineAStopKilledIsNotClosedLater(_ limits: LuaLimits) throws {
    let feature = try Self.feature(limits)
    #expect(Self.send(feature, "keep") != nil)
    #expect(Self.send(feature, "close_kept") == nil)
    #expect(
      try feature.state() == [
        "n": 0,
        "closed": [
          false,
          "a limit stopped this coroutine, so its to-be-closed variables are not closed",
        ],
      ])
  }

  @Test func aCaughtMemoryErrorLetsTheActionGoOn() throws {
    let feature = try Self.feature(LuaLimits(memory: 16 << 20, instructions: nil, seconds: 30))
    #expect(Self.send(feature, "memory") == nil)
    #expect(try feature.state() == ["n": 0, "c": 3, "caught": true])
  }

  /// An action stopped by the memory cap while its journal filled the cap (writes over and over)
  /// leaves the next action the memory it had: the rolled-back journal's stacks go with it.
  @Test func anActionAfterOneStoppedByTheCapHasItsMemory() throws {
    let feature = try LuaFeature(
      source: """
        return {
          initial_state = function() return { n = 0, t = { a = 1 } } end,
          reduce = function(state, action)
            if action.type == "fill" then
              local t = state.t
              while true do t.b = {} t.b = nil end
            end
            state.n = state.n + 1
          end,
        }
        """, file: "fill.lua", limits: LuaLimits(memory: 16 * 1_048_576, instructions: nil))
    #expect(throws: LuaFeatureError.self) { try feature.step("fill") }
    _ = try feature.step("count")
    #expect(try feature.state()["n"] == 1)
    #expect(feature.memoryInUse() < 4 * 1_048_576, "\(feature.memoryInUse()) bytes in use")
  }
}
