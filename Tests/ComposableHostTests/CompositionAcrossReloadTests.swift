import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A child's effects started before a hot reload are still cancelled when the child goes after
/// it: the compositions' bookkeeping (which children have effects running) was the old code's,
/// so the new code's `for_each`, `if_let` and `presents` knew of none, and a removed element's
/// timer ran on (an attacker's finding: its tick reached a new element of the same id, or
/// failed the run).
@Suite struct CompositionAcrossReloadTests {
  typealias Harness = ReplSessionTests.Harness

  static let source = """
    local composable = require("composable")
    local effect = composable.effect
    local Child = {
      reduce = function(state, action)
        if action.type == "start" then
          return effect.cancellable(effect.after(1, "tick"), "t")
        elseif action.type == "tick" then
          state.ticks = (state.ticks or 0) + 1
        end
      end,
    }
    local core = function(state, action)
      if action.type == "add" then
        table.insert(state.rows, { id = action.id })
      elseif action.type == "remove" then
        for i, row in ipairs(state.rows) do
          if row.id == action.id then table.remove(state.rows, i) break end
        end
      elseif action.type == "open" then
        state.sheet = {}
      elseif action.type == "close" then
        state.sheet = nil
      end
    end
    return {
      initial_state = function() return { rows = {} } end,
      reduce = composable.combine(
        composable.for_each{ state = "rows", action = "row", reducer = Child },
        composable.if_let{ state = "sheet", action = "sheet", reducer = Child },
        core),
    }
    """

  @Test(arguments: ["for_each", "if_let"])
  func aChildRemovedAfterAReloadHasItsEffectsCancelled(kind: String) async throws {
    let repl = try Harness(source: Self.source)
    if kind == "for_each" {
      await repl.type(#"{ type = "add", id = 2 }"#, #"{ type = "row", id = 2, action = "start" }"#)
    } else {
      await repl.type("open", #"{ type = "sheet", action = "start" }"#)
    }
    #expect(await repl.type(":effects").0.contains("effect.after"))
    await repl.type(":reload")
    await repl.type(kind == "for_each" ? #"{ type = "remove", id = 2 }"# : "close")
    #expect(await repl.type(":effects").0 == "  no effects running")
    // A new child of the same place gets nothing of the old one's.
    await repl.type(kind == "for_each" ? #"{ type = "add", id = 2 }"# : "open")
    await repl.type(":advance 2")
    #expect(!(try repl.session.feature.state().description.contains("ticks")))
  }
}
