import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

@testable import ComposableHost

/// After a jump, which cancels every effect, no composed child counts as having effects
/// running: the next action does not return a cancel for a child of the branch left behind
/// (an attacker's finding: `add A, start A's timer, :goto 0, add B` recorded a cancel for A,
/// which a run of `add B` does not return; `:replay` on unchanged code then said the action
/// "now returns another effect", and `composable replay` of the saved session exited 1).
@Suite struct RunningEffectsAfterJumpTests {
  typealias Harness = ReplSessionTests.Harness

  static let source = """
    local composable = require("composable")
    local effect = require("composable.effect")
    local Item = {}
    function Item.reduce(state, action)
      if action.type == "start" then
        state.started = true
        return effect.after(10, "tick")
      elseif action.type == "tick" then
        state.ticks = (state.ticks or 0) + 1
      end
    end
    local List = {}
    List.actions = { "add", "delete", "item" }
    function List.initial_state() return { items = {}, shown = nil } end
    local function list(state, action)
      if action.type == "add" then
        table.insert(state.items, { id = action.id })
      elseif action.type == "delete" then
        for i, item in ipairs(state.items) do
          if item.id == action.id then table.remove(state.items, i) break end
        end
      elseif action.type == "show" then
        state.shown = { id = action.id }
      elseif action.type == "hide" then
        state.shown = nil
      end
    end
    List.reduce = composable.combine(
      list,
      composable.for_each{ state = "items", action = "item", reducer = Item },
      composable.if_let{ state = "shown", action = "shown", reducer = Item })
    return List
    """

  static let add = #"{ type = "add", id = "A" }"#
  static let start = #"{ type = "item", id = "A", action = "start" }"#
  static let show = #"{ type = "show", id = "S" }"#
  static let startShown = #"{ type = "shown", action = "start" }"#

  /// Each way to leave a running child behind by a jump, then an action: it returns nothing,
  /// `:replay` finds every action as recorded, and so does a replay of the saved session in a
  /// fresh feature (`composable replay`).
  @Test(arguments: [
    [add, start, ":goto 0", #"{ type = "add", id = "B" }"#],
    [add, start, ":undo", ":undo", #"{ type = "add", id = "B" }"#],
    [add, start, ":goto 1", #"{ type = "delete", id = "A" }"#],
    [show, startShown, ":goto 0", #"{ type = "add", id = "B" }"#],
    [show, startShown, ":goto 1", "hide"],
    [add, start, show, startShown, ":goto 2", ":goto 0", ":redo", #"{ type = "delete", id = "A" }"#],
  ])
  func noCancelIsReturnedForAChildOfTheBranchLeftBehind(_ lines: [String]) async throws {
    let repl = try Harness(source: Self.source)
    for line in lines { await repl.type(line) }
    let last = try #require(repl.session.timeline.action(repl.session.timeline.position))
    #expect(last.effect == .nil, "\(lines): \(last.effect)")
    let replayed = await repl.type(":replay").0
    #expect(replayed.contains("the state is as it was"), "\(lines): \(replayed)")
    #expect(!replayed.contains("another effect"), "\(lines): \(replayed)")
    let recording = await repl.session.recording()
    let fresh = try SessionReplayer.fresh(recording, feature: repl.file, print: { _ in })
    for (index, action) in recording.actions.enumerated() {
      let now = fresh.replay(action).action
      #expect(
        RecordedAction.sameEffect(now.effect, action.effect),
        "\(lines): action \(index + 1): \(now.effect) against \(action.effect)")
    }
  }

  /// The check of a reload replays the actions from the start with no child running, as the
  /// session did, and puts the live record back after: its effects run on. It named "action
  /// 1's effect" (a cancel for the child the live session had running) where action 1 changed
  /// another thing (a new user's finding); and after `:save`, which checks, a child still
  /// running is cancelled when it goes.
  @Test func theCheckOfAReloadReplaysWithNoChildRunningAndKeepsTheLiveOnes() async throws {
    let repl = try Harness(source: Self.source)
    for line in [#"{ type = "add", id = "B" }"#, Self.add, Self.start] { await repl.type(line) }
    try Self.source.replacingOccurrences(
      of: "table.insert(state.items, { id = action.id })",
      with: "table.insert(state.items, { id = action.id, new = true })"
    ).write(to: repl.file, atomically: true, encoding: .utf8)
    await repl.type(":reload")
    let refused = await repl.type(":goto 0").0
    #expect(refused.contains("replayed through it, what action 1 changed differs"), "\(refused)")
    let session = repl.file.deletingLastPathComponent().appendingPathComponent("s.session.lua")
    await repl.type(":save \(session.path)")
    await repl.type(#"{ type = "delete", id = "A" }"#)
    let deleted = try #require(repl.session.timeline.action(4))
    #expect(deleted.effect.kind == "cancel", "\(deleted.effect)")
  }

  /// A jump forward names a composed child's effect by itself, not by the wrapper the
  /// composition put around it (an attacker's finding).
  @Test func aJumpForwardNamesAChildsEffectByItself() async throws {
    let repl = try Harness(source: Self.source)
    await repl.type(Self.add, Self.start, ":goto 0")
    let forward = await repl.type(":goto 2").0
    #expect(
      forward.contains("(the effects of the actions gone over are not running now: action 2's "
        + "effect.after; send an action again to start one)"), "\(forward)")
  }

  /// What is not left behind still counts: a child whose effects run when no jump came between
  /// is still cancelled when it goes, in the REPL and in a replay.
  @Test func aChildRunningOnTheSameBranchIsStillCancelled() async throws {
    let repl = try Harness(source: Self.source)
    for line in [Self.add, Self.start, #"{ type = "delete", id = "A" }"#] { await repl.type(line) }
    let deleted = try #require(repl.session.timeline.action(3))
    #expect(deleted.effect.kind == "cancel", "\(deleted.effect)")
    let replayed = await repl.type(":replay").0
    #expect(!replayed.contains("another effect"), "\(replayed)")
  }
}
