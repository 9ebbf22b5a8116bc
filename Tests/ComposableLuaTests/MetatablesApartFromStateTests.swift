import ComposableLua
import LuaKit
import TestSupport
import Testing

/// A table is either a metatable or a state table, never both. Storing a table in the state
/// moves its fields into a real table behind a proxy; the VM reads a metatable's fields raw, so
/// an object whose metatable was stored lost its `__index`, its `__name` and its `__metatable`
/// protection, though it was never stored (an attacker's finding). Each way of storing one is
/// refused and changes nothing; the object goes on as in `lua5.4`.
@Suite struct MetatablesApartFromStateTests {
  /// What the object shows: as `lua5.4` shows it, before and after the attempt.
  static let object = """
    local mt = { __index = { a = 1 }, __metatable = "locked", __name = "Thing" }
    local obj = setmetatable({}, mt)
    local function shown()
      local changed = pcall(setmetatable, obj, {})
      return tostring(obj.a) .. " " .. tostring(getmetatable(obj)) .. " " .. tostring(changed)
    end
    """

  /// Each way a table reaches the state, with `mt` as the table.
  static let routes = [
    "state.x = mt",
    "state.x = { inner = { mt } }",
    "table.insert(state.list, mt)",
    "rawset(state, 'x', mt)",
    "state.list[1] = mt",
    "table.move({ mt }, 1, 1, 2, state.list)",
    // The strings' metatable, set by the string library, not by setmetatable: emptied into
    // the state, ("x"):upper() failed for the rest of the run.
    "state.x = getmetatable('')",
    "state.x = { getmetatable('') }",
  ]

  /// The reducer's error message for `action`, or nil, recorded as an issue, when it did not
  /// fail.
  static func failure(
    of action: LuaValue, in feature: LuaFeature, sourceLocation: SourceLocation = #_sourceLocation
  ) -> String? {
    let error = featureError { _ = try feature.step(action) }
    guard case let .reduce(_, failure) = error else {
      Issue.record(
        "expected \(action) to fail, got \(String(describing: error))",
        sourceLocation: sourceLocation)
      return nil
    }
    return failure.message
  }

  @Test(arguments: routes) func aMetatableIsNotStored(_ route: String) throws {
    let source = """
      \(Self.object)
      return {
        initial_state = function() return { list = { "a" }, shown = "" } end,
        reduce = function(state, action)
          if action.type == "store" then
            \(route)
          elseif action.type == "show" then
            state.shown = shown()
          end
        end,
      }
      """
    let feature = try LuaFeature(source: source, file: "meta.lua")
    let before = try feature.state()
    guard let failure = Self.failure(of: "store", in: feature) else { return }
    #expect(
      failure.hasSuffix(
        "a table that is a metatable cannot be stored in the state (state is plain data; store "
          + "a copy of its fields)"), "\(route): \(failure)")
    #expect(try feature.state() == before, "\(route)")
    _ = try feature.step("show")
    #expect(try feature.evaluate(#"("abc"):upper()"#) == ["ABC"], "\(route)")
    let plain = try PlainLua.output(of: Self.object + "\nprint(shown())")
    #expect(plain == "1 locked false\n")
    #expect(try feature.state().shown == .string(LuaString(String(plain.dropLast()))), "\(route)")
  }

  /// The other way round: a state table, empty to the VM's raw reads, as a metatable would
  /// have none of the metamethods it shows. Refused; a table of its own with a copy of the
  /// fields works, and so does the usual class pattern with a copy of an instance's data.
  @Test func aStateTableIsNotAMetatable() throws {
    let source = """
      return {
        initial_state = function() return { base = { greeting = "hi" } } end,
        reduce = function(state, action)
          if action.type == "as_metatable" then
            setmetatable({}, state.base)
          elseif action.type == "copied" then
            local Class = { __index = { greeting = state.base.greeting } }
            local object = setmetatable({}, Class)
            state.said = object.greeting
            state.copy = { greeting = object.greeting }
          end
        end,
      }
      """
    let feature = try LuaFeature(source: source, file: "meta.lua")
    let before = try feature.state()
    guard let failure = Self.failure(of: "as_metatable", in: feature) else { return }
    #expect(
      failure
        == "meta.lua:5: a state table cannot be a metatable (state is plain data; use a table of "
        + "its own, with a copy of the fields)")
    #expect(try feature.state() == before)
    _ = try feature.step("copied")
    #expect(try feature.state().said == "hi")
    #expect(try feature.state().copy == ["greeting": "hi"])
  }

  /// A state table has no metatable (`getmetatable` says nil), so `setmetatable(t, nil)` is
  /// Lua's no-op that returns `t`, as generic code calls it; a metatable is still refused.
  @Test func settingNoMetatableOnAStateTableIsANoOp() throws {
    let source = """
      return {
        initial_state = function() return { t = { a = 1 } } end,
        reduce = function(state, action)
          if action.type == "none" then
            state.same = setmetatable(state.t, nil) == state.t
            state.meta = tostring(getmetatable(state.t))
          else
            setmetatable(state.t, {})
          end
        end,
      }
      """
    let feature = try LuaFeature(source: source, file: "meta.lua")
    _ = try feature.step("none")
    #expect(try feature.state().same == true)
    #expect(try feature.state().meta == "nil")
    #expect(try feature.state().t == ["a": 1])
    let before = try feature.state()
    guard let failure = Self.failure(of: "some", in: feature) else { return }
    #expect(
      failure
        == "meta.lua:8: a state table cannot have a metatable (state is plain data: tables, "
        + "strings, numbers and booleans)")
    #expect(try feature.state() == before)
  }
}
