import ComposableLua
import LuaKit
import Testing

/// Lists about 2,048 long (the size a list's proxy was once made with an array part of nils,
/// measured and taken back: it doubled the memory of small lists read once, for 2-6% fewer
/// instructions a step of a loop): reads at the edges and past them, writes inside and at the
/// end, growth past the length the proxy was made at and shrinking under it, shifts (no holes:
/// where a list has one, `#` may give either border, in plain Lua too), compared with a plain
/// copy across actions and rollbacks (a failed action puts the copy back as the rollback puts
/// the state back).
@Suite struct ListEdgesTests {
  static let source = """
    local F = {}
    local plain
    local function copy(v)
      if type(v) ~= "table" then return v end
      local t = {}
      for k, x in pairs(v) do t[k] = copy(x) end
      return t
    end
    local function seen(list)
      local n = #list
      local parts = { "#" .. n, "raw" .. rawlen(list) }
      for _, k in ipairs({ 0, -1, 1, 2, n - 1, n, n + 1, n + 2, 2047, 2048, 2049, 2050,
                           4096, 2^53, 1.0, 1.5, "1", math.huge, -math.huge }) do
        local v = list[k]
        parts[#parts + 1] = tostring(k) .. "=" .. (type(v) == "table" and "{" .. tostring(v.n) .. "}"
                                                   or tostring(v))
        parts[#parts + 1] = tostring(rawget(list, k) ~= nil)
      end
      local count, sum = 0, 0
      for i, v in ipairs(list) do
        count = count + 1
        sum = sum + i + (type(v) == "table" and v.n or v)
      end
      local keys = 0
      for _ in pairs(list) do keys = keys + 1 end
      parts[#parts + 1] = "ipairs" .. count .. "/" .. sum .. " pairs" .. keys
      parts[#parts + 1] = "next" .. tostring(next(list) ~= nil)
      parts[#parts + 1] = "unpack" .. select("#", table.unpack(list, 1, math.min(n, 100)))
      return table.concat(parts, " ")
    end
    local function check(state, where)
      local got, want = seen(state.list), seen(plain)
      if got ~= want then error(where .. ": state " .. got .. " / plain " .. want, 0) end
    end
    local function apply(list, how, n)
      if how == 1 then list[#list + 1] = n
      elseif how == 2 then list[#list] = nil
      elseif how == 3 then list[1] = { n = n }
      elseif how == 4 then table.insert(list, 1, n)
      elseif how == 5 then table.remove(list, 1)
      elseif how == 6 then list[#list] = n
      elseif how == 7 then for i = 1, 40 do list[#list + 1] = i end
      elseif how == 8 then for _ = 1, 40 do list[#list] = nil end
      elseif how == 9 then for i = #list + 1, 2049 do list[i] = n end  -- across the limit
      elseif how == 10 then if type(list[1]) == "table" then list[1].n = n end
      end
    end
    function F.initial_state()
      plain = {}
      return { list = {} }
    end
    function F.reduce(state, action)
      local backup = copy(plain)
      if action.length then
        local list = {}
        for i = 1, action.length do list[i] = i % 3 == 0 and { n = i } or i end
        plain = copy(list)
        state.list = list
      end
      check(state, "at the start")
      for step, how in ipairs(action.ops) do
        apply(state.list, how, step)
        apply(plain, how, step)
        check(state, "op " .. how .. " at step " .. step)
      end
      if action.fail then
        plain = backup
        error("asked to roll back", 0)
      end
    end
    return F
    """

  @Test(arguments: [0, 1, 2, 3, 2_046, 2_047, 2_048, 2_049, 2_050] as [Int])
  func readsWritesAndLoopsSeeWhatPlainTablesHold(_ length: Int) throws {
    let feature = try LuaFeature(source: Self.source, file: "list-edges.lua")
    let opsOfActions: [[Int]] = [
      [], [1, 1, 2], [7, 7], [8, 8, 8], [3, 10, 4, 5], [6, 1, 2, 2], [9], [7, 9, 8],
      [5, 5, 5, 5], [1], [2, 2], [4, 4, 4],
    ]
    for (index, ops) in opsOfActions.enumerated() {
      for fail in [true, false] {
        var action: LuaValue = [
          "type": "run", "ops": .table(LuaTable(array: ops.map { .integer($0) })),
          "fail": .boolean(fail),
        ]
        if index == 0 { action.length = .integer(length) }
        let message: String? =
          switch Result(catching: { try feature.step(action) }) {
          case .success: nil
          case .failure(let error): "\(error)"
          }
        if fail, let message, message.contains("the state was rolled back: asked to roll back") {
          continue
        }
        if !fail && message == nil { continue }
        Issue.record("length \(length), action \(index): \(message ?? "did not fail")")
        return
      }
    }
    #expect(try feature.state()["list"].tableValue != nil)
  }
}
