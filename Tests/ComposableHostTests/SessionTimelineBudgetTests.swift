import ComposableHost
import LuaKit
import Testing

/// A session's checkpoints hold at most their budget together: the oldest go first, the
/// initial state and the newest stay, and a jump before the oldest left starts from the initial
/// state.
@Suite struct SessionTimelineBudgetTests {
  static func state(_ number: Int) -> LuaValue {
    [
      "n": .number(Double(number)),
      "blob": .string(LuaString(String(repeating: "x", count: 1 << 20))),
    ]
  }

  /// A timeline with a checkpoint after every action, of `actions` actions of 1 MiB states.
  static func timeline(budget: Int, actions: Int) -> SessionTimeline {
    let timeline = SessionTimeline(
      initialState: ["n": 0], checkpointInterval: 1, checkpointBudget: budget)
    for number in 1...actions {
      timeline.record(
        RecordedAction(action: "tick", fromEffect: false, time: 0), stateAfter: state(number))
    }
    return timeline
  }

  @Test func theCheckpointsStayWithinTheirBudget() {
    let timeline = Self.timeline(budget: 10 << 20, actions: 50)
    #expect(timeline.checkpointBytesHeld <= 10 << 20)
    #expect(timeline.checkpointCount >= 2 && timeline.checkpointCount <= 11)
    #expect(timeline.checkpoint(atOrBefore: 50).position == 50)
    #expect(timeline.checkpoint(atOrBefore: 50).state["n"] == .number(50))
    let early = timeline.checkpoint(atOrBefore: 5)
    #expect(early.position == 0 && early.state == ["n": 0])
  }

  /// A checkpoint larger than the whole budget is kept while it is the newest.
  @Test func theNewestIsKeptEvenWhenAloneItIsOverBudget() {
    let timeline = Self.timeline(budget: 1 << 10, actions: 3)
    #expect(timeline.checkpointCount == 2)
    #expect(timeline.checkpoint(atOrBefore: 3).position == 3)
    #expect(timeline.checkpoint(atOrBefore: 2).position == 0)
  }
}
