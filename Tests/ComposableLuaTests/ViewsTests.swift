import ComposableLua
import LuaKit
import Testing

/// A state table holding tables, read again in a transaction, gets a *view* (Transaction.c,
/// "Views"): what its reads found (nested tables' proxies, values) kept in a table its proxy
/// reads through, so a read of a key read before is a lookup the VM does. A view must never
/// show what its table no longer holds: each way a table is written behind its proxy's back is
/// tried below, after reads that fill the view, and the reads after it must see the write (and
/// a write through what they hand out must be journaled: rolled back with its action).
@Suite struct ViewsTests {
  static let source = """
    local F = {}
    function F.initial_state()
      local list = {}
      for i = 1, 10 do list[i] = { n = i, sub = { v = i } } end
      return {
        users = { a = { name = "A", profile = { age = 1 } }, b = { name = "B", profile = { age = 2 } } },
        list = list,
      }
    end
    -- Reads that fill the views of the root, `users`, each user and `list`.
    local function fill(state)
      for _ = 1, 2 do
        local _ = state.users.a.name, state.users.a.profile.age, state.users.b.name,
          state.users.b.profile, state.list[1].sub, state.list[2].sub, state.list[10].n
      end
    end
    function F.reduce(state, action)
      local t = action.type
      fill(state)
      if t == "fill" then
        return
      elseif t == "write_scalar" then
        state.users.a.name = "A2"
        state.seen = state.users.a.name
      elseif t == "write_table" then
        state.users.a = { name = "new", profile = { age = 9 } }
        state.seen = state.users.a.name .. state.users.a.profile.age
        state.users.a.profile.age = 10
      elseif t == "write_nil" then
        state.users.b = nil
        state.seen = tostring(state.users.b)
      elseif t == "rawset" then
        rawset(state.users, "a", { name = "raw", profile = { age = 3 } })
        state.seen = state.users.a.name
        state.users.a.profile.age = 4
      elseif t == "insert" then
        table.insert(state.list, 1, { n = 0, sub = { v = 0 } })
        state.seen = state.list[1].n .. "," .. state.list[2].n .. "," .. #state.list
      elseif t == "remove" then
        table.remove(state.list, 1)
        state.seen = state.list[1].n .. "," .. state.list[10 - 1].n .. "," .. #state.list
      elseif t == "sort" then
        table.sort(state.list, function(a, b) return a.n > b.n end)
        state.seen = state.list[1].n .. "," .. state.list[2].sub.v .. "," .. state.list[10].n
        state.list[1].sub.v = 100
      elseif t == "move" then
        table.move(state.list, 1, 3, 8)
        state.seen = state.list[8].n .. "," .. state.list[10].sub.v
      elseif t == "write_then_fail" then
        state.users.a = { name = "gone", profile = { age = 0 } }
        fill(state)
        error("rolled back")
      elseif t == "read_after" then
        state.seen = state.users.a.name .. state.users.a.profile.age
      elseif t == "write_through_read" then
        -- What the reads hand out after a rollback or a host write: written, then rolled back.
        state.users.a.profile.age = 77
        state.list[1].sub.v = 77
        error("rolled back")
      end
      if action.fail then error("rolled back") end
    end
    return F
    """

  func feature() throws -> LuaFeature { try LuaFeature(source: Self.source, file: "views.lua") }

  /// Each write behind a filled view is seen by the reads after it, in the action and in the
  /// next; and a failed one leaves the state as it was, reads included.
  @Test(arguments: [
    ("write_scalar", "A2"), ("write_table", "new9"), ("write_nil", "nil"), ("rawset", "raw"),
    ("insert", "0,1,11"), ("remove", "2,10,9"), ("sort", "10,9,1"), ("move", "1,3"),
  ])
  func aWriteBehindAViewIsSeen(_ type: String, _ seen: String) throws {
    let feature = try feature()
    _ = try feature.step("fill")
    _ = try feature.step("fill")
    let before = try feature.state()
    #expect(throws: LuaFeatureError.self) {
      try feature.step(["type": .string(LuaString(type)), "fail": true])
    }
    #expect(try feature.state() == before, "\(type): the rollback")
    _ = try feature.step(.string(LuaString(type)))
    #expect(try feature.state()["seen"] == .string(LuaString(seen)), "\(type)")
    let after = try feature.state()
    // A write through what the reads hand out now is journaled.
    #expect(throws: LuaFeatureError.self) { try feature.step("write_through_read") }
    #expect(try feature.state() == after, "\(type): a write through a read after it")
  }

  /// A rollback whose undo gives `users.a` its old table back: the views that found the new one
  /// are taken back, and the next reads find the old table's proxy (a write through it is
  /// journaled).
  @Test func aRollbackGivesTheOldTablesBackToTheReads() throws {
    let feature = try feature()
    _ = try feature.step("fill")
    #expect(throws: LuaFeatureError.self) { try feature.step("write_then_fail") }
    _ = try feature.step("read_after")
    #expect(try feature.state()["seen"] == "A1")
    let kept = try feature.state()
    #expect(throws: LuaFeatureError.self) { try feature.step("write_through_read") }
    #expect(try feature.state() == kept)
  }

  /// The host's write (a state set from Swift) replaces tables behind every view.
  @Test func theHostsWriteIsSeenByTheReads() throws {
    let feature = try feature()
    _ = try feature.step("fill")
    _ = try feature.step("fill")
    var state = try feature.state()
    state["users"]["a"]["name"] = "host"
    state["users"]["a"]["profile"]["age"] = 5
    try feature.setState(state)
    _ = try feature.step("read_after")
    #expect(try feature.state()["seen"] == "host5")
    let kept = try feature.state()
    #expect(throws: LuaFeatureError.self) { try feature.step("write_through_read") }
    #expect(try feature.state() == kept)
  }
}

extension ViewsTests {
  /// A view keeps at most 4,096 entries (the proxies it holds stay alive): reads past them go to
  /// the real table each time, and writes to them and to kept ones are seen alike.
  @Test func aLargeTablesViewKeepsItsLimitAndReadsTheRest() throws {
    let feature = try LuaFeature(
      source: """
        return {
          initial_state = function()
            local big = {}
            for i = 1, 5000 do big[i] = { v = i } end
            return { big = big }
          end,
          reduce = function(state, action)
            local big = state.big
            for _ = 1, 2 do
              local sum = 0
              for i = 1, 5000 do sum = sum + big[i].v end
              state.sum = sum
            end
            if action.type == "write" then
              big[4500].v, big[10].v = -1, -2
              big[4999] = { v = 0 }
              state.seen = big[4500].v .. "," .. big[10].v .. "," .. big[4999].v
              if action.fail then error("rolled back") end
            end
          end,
        }
        """, file: "big.lua")
    _ = try feature.step("read")
    _ = try feature.step("read")
    let before = try feature.state()
    #expect(before["sum"] == .integer(5000 * 5001 / 2))
    #expect(throws: LuaFeatureError.self) { try feature.step(["type": "write", "fail": true]) }
    #expect(try feature.state() == before)
    _ = try feature.step("write")
    let after = try feature.state()
    #expect(after["seen"] == "-1,-2,0")
    #expect(after["big"][4500]["v"] == -1 && after["big"][4999]["v"] == 0)
    _ = try feature.step("read")
    #expect(try feature.state()["sum"] == .integer(5000 * 5001 / 2 - 4501 - 12 - 4999))
  }
}
