import Composable
import ComposableLua
import LuaKit
import TestSupport
import Testing

@Suite struct TransactionTests {
  static let source = """
    local M = {}
    function M.initial_state()
      return { name = "a", count = 1, flag = false, items = { "x" }, nested = { deep = 1 } }
    end
    function M.reduce(state, action)
      if action.type == "edit" then
        state.name = "b"
        state.count = 2
        state.flag = true
        table.insert(state.items, "y")
        state.nested.deep = 2
        if action.fail then error("failed half way") end
      elseif action.type == "count" then
        state.count = state.count + 1
      elseif action.type == "spin" then
        state.count = 99
        while true do end
      elseif action.type == "hog" then
        state.count = 77
        local t = {}
        while true do t[#t + 1] = { 1, 2, 3 } end
      end
    end
    return M
    """

  static let before: LuaValue = [
    "name": "a", "count": 1, "flag": false, "items": ["x"], "nested": ["deep": 1],
  ]

  @Test func anErrorHalfWayLeavesTheStateExactlyAsItWas() throws {
    let feature = try LuaFeature(source: Self.source, file: "edit.lua")
    // Actions that succeeded before the failing one stay.
    _ = try feature.step("count")
    _ = try feature.step("count")
    let error = featureError {
      _ = try feature.step(["type": "edit", "fail": true])
    }
    guard case let .reduce(_, .runtime(message, traceback)) = error else {
      Issue.record("expected a runtime error, got \(String(describing: error))")
      return
    }
    #expect(message == "edit.lua:12: failed half way")
    #expect(traceback.contains("edit.lua:12"))
    var counted = Self.before
    counted.count = 3
    #expect(try feature.state() == counted)
    // And the feature goes on working.
    _ = try feature.step(["type": "edit"])
    #expect(try feature.state() == [
      "name": "b", "count": 2, "flag": true, "items": ["x", "y"], "nested": ["deep": 2],
    ])
  }

  @Test func anInstructionBudgetAbortRollsBack() throws {
    let feature = try LuaFeature(
      source: Self.source, file: "spin.lua", limits: LuaLimits(memory: 16 << 20, instructions: 100_000))
    let error = featureError { _ = try feature.step("spin") }
    guard case .reduce(_, .instructionLimit) = error else {
      Issue.record("expected the instruction limit, got \(String(describing: error))")
      return
    }
    #expect(try feature.state() == Self.before)
  }

  @Test func aMemoryCapAbortRollsBack() throws {
    let feature = try LuaFeature(
      source: Self.source, file: "hog.lua", limits: LuaLimits(memory: 8 << 20, instructions: nil))
    let error = featureError { _ = try feature.step("hog") }
    guard case .reduce(_, .memoryLimit) = error else {
      Issue.record("expected the memory limit, got \(String(describing: error))")
      return
    }
    #expect(try feature.state() == Self.before)
  }

  @Test func inTheStoreAFailedActionIsReportedAndChangesNothing() async throws {
    let store = try testStore(Self.source, file: "edit.lua")
    await withKnownIssue {
      await store.send(["type": "edit", "fail": true])
    } matching: { issue in
      message(of: issue).hasPrefix("""
        the reducer failed on { fail = true, type = "edit" }, and the state was rolled back: \
        edit.lua:12: failed half way
        """)
    }
    await store.send("edit") {
      $0.name = "b"
      $0.count = 2
      $0.flag = true
      $0.items = ["x", "y"]
      $0.nested.deep = 2
    }
  }

  @Test func stateTablesKeepTheirIdentityAndSortWorks() throws {
    let feature = try LuaFeature(source: """
      return {
        initial_state = function() return { list = { 3, 1, 2 }, copy = nil } end,
        reduce = function(state, action)
          table.sort(state.list)
          state.same = state.list == state.list
          state.copy = { inner = state.list }
          local n = 0
          for _, v in ipairs(state.list) do n = n + v end
          for k, v in pairs(state) do if k == "list" then n = n + #v end end
          state.sum = n
        end,
      }
      """, file: "sort.lua")
    _ = try feature.step("go")
    #expect(try feature.state() == [
      "list": [1, 2, 3], "same": true, "copy": ["inner": [1, 2, 3]], "sum": 9,
    ])
  }
}

@Suite struct MalformedActionTests {
  @Test func anActionWithoutAStringTypeIsAClearError() throws {
    let feature = try LuaFeature(source: TransactionTests.source, file: "edit.lua")
    for (action, description) in [
      (["kind": "edit"] as LuaValue, "a table whose type is nil"), (42, "number"),
      // The tag is seen as the keys are pushed: a nested `type`, or one that is not a string,
      // does not make the action tagged.
      (["inner": ["type": "edit"]], "a table whose type is nil"),
      (["type": 3, "types": "edit"], "a table whose type is number"),
      (["type": ["edit"]], "a table whose type is table"),
    ] {
      let error = featureError { _ = try feature.step(action) }
      guard case let .malformedAction(_, message) = error else {
        Issue.record("expected the action refused, got \(String(describing: error))")
        continue
      }
      #expect(message == "expected an action (a table with a string type, or a string), got \(description)")
    }
    #expect(try feature.state() == TransactionTests.before)
  }
}

/// The edges of the proxies a reducer gets: state tables handed back to the host, values
/// stored into the state that hold proxies deep inside or that contain themselves, and a
/// removed key put back by a rollback.
@Suite struct TransactionProxyTests {
  static let source = """
    return {
      initial_state = function() return { todos = { { id = 1, title = "a" } }, extra = 1 } end,
      reduce = function(state, action)
        if action.type == "echo" then
          return { kind = "send", action = { type = "echoed", todo = state.todos[1] } }
        elseif action.type == "deep" then
          local top = {}
          local node = top
          for _ = 1, 20 do node.next = {} node = node.next end
          node.todos = state.todos
          node.loop = top
          state.deep = top
          state.deepHoldsTheProxy = rawequal(node.todos, state.todos)
          node.loop = nil
        elseif action.type == "remove_then_fail" then
          state.extra = nil
          for i = 1, 40 do state["k" .. i] = i end
          error("no")
        end
      end,
    }
    """

  @Test func aStateTableHandedBackReadsAsItsData() throws {
    let feature = try LuaFeature(source: Self.source, file: "echo.lua")
    let returned = try feature.step("echo").returned
    #expect(returned.action.todo == ["id": 1, "title": "a"])
  }

  @Test func aStoredValueHoldingAProxyDeepDownAndACycleIsStoredAsData() throws {
    let feature = try LuaFeature(source: Self.source, file: "deep.lua")
    _ = try feature.step("deep")
    var node = try feature.state().deep
    for _ in 1...20 { node = node.next }
    #expect(node.todos == [["id": 1, "title": "a"]])
    // Inside the reducer `node.todos` is still the proxy: the stored tables were adopted, and
    // no reference the reducer holds became a way around the journal.
    #expect(try feature.state().deepHoldsTheProxy == true)
  }

  @Test func aRollbackPutsBackARemovedKeyAfterTheTableGrew() throws {
    let feature = try LuaFeature(source: Self.source, file: "remove.lua")
    let before = try feature.state()
    let error = featureError { _ = try feature.step("remove_then_fail") }
    guard case .reduce = error else {
      Issue.record("expected a reduce error, got \(String(describing: error))")
      return
    }
    #expect(try feature.state() == before)
  }
}
