import ComposableLua
import LuaKit
import Testing

/// A refusal that could name one of several places names the first in key order, in every VM.
/// Each VM hashes strings with its own seed, so a walk in hash order named one place or another
/// from one run to the next, and `composable replay` of a session on the very code it was
/// recorded on said its action's error was another now (4 runs in 5, a helper's finding).
/// Written for a stored table with several values a state cannot hold; the state's shape (a
/// cycle or too deep, at several places) is in `StateShapeTests`.
@Suite struct RefusedPlacesInKeyOrderTests {
  static let source = """
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action)
        local t = action.type
        if t == "values" then
          state.x = { zeta = print, eta = print, alpha = coroutine.create(print), mu = print }
        elseif t == "nested" then
          state.x = { z = { f = print }, y = { f = print }, b = { f = print },
                      a = { c = coroutine.create(print) } }
        elseif t == "keys" then
          state.x = { [print] = 1, [coroutine.create(print)] = 2, alpha = print, beta = 1 }
        elseif t == "keytypes" then
          state.x = { [coroutine.create(print)] = 2, [function() end] = 1,
                      [coroutine.create(print)] = 4, [function() end] = 3 }
        elseif t == "deep" then
          local function chain(n) local c = {} local cur = c
            for _ = 1, n do cur.next = {} cur = cur.next end return c end
          state.x = { zz = chain(10), aa = { m = setmetatable({}, {}) }, bb = chain(300) }
        end
      end,
    }
    """

  @Test(arguments: [
    ("values", "a coroutine cannot be kept in the state"),
    ("nested", "a coroutine cannot be kept in the state"),
    ("keys", "a function cannot be kept in the state"),
    ("deep", "a table with a metatable cannot be stored in the state"),
    ("keytypes", "a function cannot be a state key"),
  ])
  func theFirstRefusalInKeyOrderIsNamed(_ type: String, _ expected: String) throws {
    var messages: Set<String> = []
    for _ in 0..<12 {
      let feature = try LuaFeature(source: Self.source, file: "refused.lua")
      do throws(LuaFeatureError) {
        try feature.step(["type": .string(LuaString(type))])
        messages.insert("no error")
      } catch {
        messages.insert(error.description.components(separatedBy: "\n")[0])
      }
      #expect(try feature.state() == ["n": 0])  // rolled back
    }
    #expect(messages.count == 1, "\(messages)")
    #expect(messages.first?.contains("refused.lua:") == true, "\(messages)")
    #expect(messages.first?.contains(expected) == true, "\(messages)")
  }

  /// A value read into Swift (here the table `initial_state()` returns) that holds a table
  /// inside itself at several places is refused at the first place in key order.
  @Test func aSnapshotNamesTheFirstPlaceInKeyOrder() throws {
    let source = """
      return {
        initial_state = function()
          local shared = { v = 1 }
          shared.back = { again = shared }
          local state = {}
          for _, name in ipairs({ "kilo", "delta", "beta", "juliet", "alpha", "echo", "golf",
                                  "hotel", "india", "foxtrot", "charlie", "lima" }) do
            state[name] = { s = shared }
          end
          return state
        end,
        reduce = function() end,
      }
      """
    let messages = Self.loadMessages(source, file: "cycle.lua")
    #expect(messages.count == 1, "\(messages)")
    #expect(
      messages.first?.contains(".alpha.s.back.again: cycle: the table contains itself") == true,
      "\(messages)")
  }

  /// The table `initial_state()` returns, copied in C, names what it refuses by the same first
  /// field in key order as the path the host gives (a function at `a` was said to be a coroutine,
  /// one run in two: the copy walked in hash order, the path in key order).
  @Test func anInitialStateNamesTheFirstFieldAndWhatItHolds() throws {
    let source = """
      return {
        initial_state = function()
          local t = {}
          for i = 1, 12 do
            t["k" .. i] = i % 2 == 0 and print or coroutine.create(print)
          end
          t.a = print
          return t
        end,
        reduce = function() end,
      }
      """
    let messages = Self.loadMessages(source, file: "initial.lua")
    #expect(messages.count == 1, "\(messages)")
    #expect(messages.first?.contains(".a: a function cannot be kept in the state") == true,
      "\(messages)")
  }

  /// What loading `source` in 12 VMs (each its own string-hash seed) said: its errors, or
  /// "loaded".
  static func loadMessages(_ source: String, file: String) -> Set<String> {
    var messages: Set<String> = []
    for _ in 0..<12 {
      do {
        _ = try LuaFeature(source: source, file: file)
        messages.insert("loaded")
      } catch {
        messages.insert("\(error)")
      }
    }
    return messages
  }
}
