import Composable
import ComposableLua
import Foundation
import LuaKit
import SeededRandom
import TestSupport
import Testing

/// `printChanges` on a store that holds a handle reads each action's changes from its
/// transaction (no copy of the state): it must print exactly what a store holding snapshots
/// prints, for every kind of write, alias and move, and nothing for an action that failed (its
/// error, given to `onError`, is its report: "(No state changes)" after it only confused).
@Suite struct TransactionChangesTests {
  /// What a handle store's `printChanges` printed for each action sent.
  final class Printed: Sendable {
    private let texts = Locked<[String]>([])
    var printer: ChangePrinter { ChangePrinter { text in self.texts.withLock { $0.append(text) } } }
    func take() -> [String] {
      texts.withLock { texts in
        defer { texts = [] }; return texts
      }
    }
  }

  static func store(
    _ feature: LuaFeature, _ printed: Printed, _ errors: Errors = Errors()
  ) -> Store<LuaFeatureHandle, LuaValue> {
    Store(
      initialState: LuaFeatureHandle(feature: feature),
      reducer: LuaFeatureReducer<LuaFeatureHandle>(
        feature: feature, dependencies: .live, onError: { errors.append($0) }
      ).printChanges(to: printed.printer))
  }

  /// What a store holding snapshots prints for `action` taking `before` to `after`.
  static func expected(_ action: LuaValue, _ before: LuaValue, _ after: LuaValue) -> String {
    let printed = Locked<String>("")
    ChangePrinter { text in printed.withLock { $0 = text } }.write(
      action: action.notation,
      difference: LuaValue.notationDifference(from: before, to: after, colored: false))
    return printed.withLock { $0 }
  }

  @Test func generatedProgramsPrintWhatSnapshotsWould() async throws {
    let (feature, seed) = try RandomTransactionTests.program(seed: 7)
    var random = SplitMix64(seed: seed)
    let initial = try feature.state()
    let printed = Printed(), errors = Errors()
    let store = Self.store(feature, printed, errors)
    var compared = 0, mismatches = 0, failed = 0
    for index in 0..<2_000 {
      var action = Program.random(using: &random)
      if random.below(4) != 0 { action.fail = nil }  // mostly actions that commit
      guard let before = try? feature.state() else {
        try feature.replaceState(with: initial)  // a cycle, which a snapshot refuses
        continue
      }
      let errorsBefore = errors.all.count
      await store.send(action)
      let text = printed.take()
      guard let after = try? feature.state() else { continue }
      compared += 1
      let didFail = errors.all.count > errorsBefore
      if didFail { failed += 1 }
      let expected = didFail ? [] : [Self.expected(action, before, after)]
      if text != expected {
        mismatches += 1
        Issue.record(
          """
          case \(index) (seed \(seed)) printed other changes than the snapshots show:
          program:  \(action)
          before:   \(before)
          after:    \(after)
          printed:  \(text)
          expected: \(expected)
          """)
        if mismatches > 3 { break }
      }
    }
    #expect(compared > 1_500)
    #expect(failed > 0)  // failed actions were among them, and printed nothing
  }

  static let todos = """
    return {
      initial_state = function()
        local todos = {}
        for id = 1, 5 do todos[id] = { id = id, title = "Todo " .. id, done = false } end
        return { todos = todos, groups = { { members = { todos[2] } } }, count = 0 }
      end,
      reduce = function(state, action)
        local t = action.type
        if t == "toggle" then
          local todo = state.todos[action.id]
          todo.done = not todo.done
        elseif t == "remove" then table.remove(state.todos, action.at)
        elseif t == "rename" then state.todos[2].title = "Renamed\\r\\nTodo"
        elseif t == "same" then state.count = state.count; state.todos[1].done = false
        elseif t == "rebuild" then
          local copy = {}
          for i, todo in ipairs(state.todos) do
            copy[i] = { id = todo.id, title = todo.title, done = todo.done }
          end
          state.todos = copy
        elseif t == "nan" then state.count = 0/0
        elseif t == "keep" then KEPT = state.todos[3]
        elseif t == "through_kept" then KEPT.title = "Kept"
        elseif t == "fail" then state.count = 1; error("no")
        elseif t == "loop" then state.loop = {}; state.loop.self = state.loop
        elseif t == "huge" then state.count = 1e300; state.todos[1].id = math.mininteger
        elseif t == "deep" then
          local level = state
          for _ = 1, 205 do level.deeper = {} level = level.deeper end
        end
      end,
    }
    """

  func run(_ actions: [LuaValue]) async throws -> ([String], [LuaFeatureError]) {
    let feature = try LuaFeature(source: Self.todos, file: "todos.lua")
    let printed = Printed(), errors = Errors()
    let store = Self.store(feature, printed, errors)
    var texts: [String] = []
    for action in actions {
      await store.send(action)
      texts += printed.take()
    }
    return (texts, errors.all)
  }

  @Test func oneWriteIsOneChange() async throws {
    let (texts, _) = try await run([["type": "toggle", "id": 4]])
    #expect(
      texts == [
        """
        received action:
          { id = 4, type = "toggle" }
          \u{2212} todos[4].done = false
          + todos[4].done = true
        """
      ])
  }

  /// A table held in two places shows its change in both, though the reducer went through
  /// one: `groups[1].members[1]` is `todos[2]`. The change is listed at the first place and the
  /// second says it is the same table (a table at 2^40 places is listed once, not 2^40 times).
  @Test func aChangedTableShowsWhereverItIsHeld() async throws {
    let (texts, _) = try await run(["rename"])
    #expect(
      texts == [
        """
        received action:
          "rename"
          \u{2212} groups[1].members[1].title = "Todo 2"
          + groups[1].members[1].title = "Renamed\\r\\nTodo"
          = todos[2]: the same table as groups[1].members[1]
        """
      ])
  }

  @Test func aRemovalInTheMiddleIsOneChange() async throws {
    let (texts, _) = try await run([["type": "remove", "at": 2]])
    #expect(
      texts == [
        """
        received action:
          { at = 2, type = "remove" }
          \u{2212} todos[2] = { done = false, id = 2, title = "Todo 2" }
        """
      ])
  }

  /// Writes that put back what was there, and new tables equal to the old ones, change nothing.
  @Test func writesOfTheSameValuesAreNoChange() async throws {
    let (texts, _) = try await run(["same", "rebuild"])
    #expect(
      texts == [
        "received action:\n  \"same\"\n  (No state changes)",
        "received action:\n  \"rebuild\"\n  (No state changes)",
      ])
  }

  @Test func aFailedActionChangesNothing() async throws {
    let (texts, errors) = try await run(["fail", "nan", "nan"])
    #expect(errors.count == 1)
    // "fail" printed nothing: its error is its report.
    #expect(
      texts == [
        "received action:\n  \"nan\"\n  \u{2212} count = 0\n  + count = 0/0",
        "received action:\n  \"nan\"\n  (No state changes)",
      ])
  }

  /// A table a global kept from an earlier action is written in a later one: no path from the
  /// state's root was taken to it in that action, and its change shows all the same.
  @Test func aWriteThroughAKeptTableShows() async throws {
    let (texts, _) = try await run(["keep", "through_kept"])
    #expect(
      texts == [
        "received action:\n  \"keep\"\n  (No state changes)",
        """
        received action:
          "through_kept"
          \u{2212} todos[3].title = "Todo 3"
          + todos[3].title = "Kept"
        """,
      ])
  }

  /// A table inside itself is no change to print: the action fails (the state's shape is
  /// checked before it ends), nothing changed.
  @Test func aTableInsideItselfFailsTheActionAndChangesNothing() async throws {
    let (texts, errors) = try await run(["loop"])
    #expect(
      errors.map(\.description) == [
        """
        the reducer failed on { type = "loop" }, and the state was rolled back: the state would \
        hold a table inside itself: state.loop.self is state.loop, a table it is inside. A state is \
        data a file can hold, which has no cycles. To fix, hold an id and look it up, or a copy
        """
      ])
    #expect(texts.isEmpty, "\(texts)")  // the error alone
  }

  /// Numbers at the edges print as a snapshot prints them; a state grown deeper than a snapshot
  /// reads (one level at a time, each store allowed) fails the action, which changes nothing.
  @Test func hugeNumbersAndATooDeepStateAreSaid() async throws {
    let (texts, errors) = try await run(["huge", "deep"])
    #expect(
      texts.first
        == """
        received action:
          "huge"
          \u{2212} count = 0
          + count = \(LuaValue.number(1e300))
          \u{2212} todos[1].id = 1
          + todos[1].id = math.mininteger
        """)
    #expect(texts.count == 1, "\(texts)")  // "deep" failed: its error alone
    #expect(errors.count == 1)
    #expect(
      errors.first?.description.contains(
        "the state would be nested more than 200 levels deep, at state.deeper.deeper") == true)
  }
}
