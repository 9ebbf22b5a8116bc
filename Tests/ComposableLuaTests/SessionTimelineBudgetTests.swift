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

  @Test func theCheckpointsStayWithinTheirBudget() {
    let timeline = SessionTimeline(
      initialState: ["n": 0], checkpointInterval: 1, checkpointBudget: 10 << 20)
    for number in 1...50 {
      timeline.record(
        RecordedAction(action: "tick", fromEffect: false, time: 0), stateAfter: Self.state(number))
    }
    #expect(timeline.checkpointBytesHeld <= 10 << 20)
    #expect(timeline.checkpointCount >= 2 && timeline.checkpointCount <= 11)
    #expect(timeline.checkpoint(atOrBefore: 50).position == 50)
    #expect(timeline.checkpoint(atOrBefore: 50).state["n"] == .number(50))
    let early = timeline.checkpoint(atOrBefore: 5)
    #expect(early.position == 0 && early.state == ["n": 0])
  }

  /// A checkpoint larger than the whole budget is kept while it is the newest.
  @Test func theNewestIsKeptEvenWhenAloneItIsOverBudget() {
    let timeline = SessionTimeline(
      initialState: ["n": 0], checkpointInterval: 1, checkpointBudget: 1 << 10)
    for number in 1...3 {
      timeline.record(
        RecordedAction(action: "tick", fromEffect: false, time: 0), stateAfter: Self.state(number))
    }
    #expect(timeline.checkpointCount == 2)
    #expect(timeline.checkpoint(atOrBefore: 3).position == 3)
    #expect(timeline.checkpoint(atOrBefore: 2).position == 0)
  }
}
