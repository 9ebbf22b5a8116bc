import Composable
import Testing

/// A refusal (`Effect.failure`) merged with other effects is still a refusal: `ifLet`,
/// `forEach` and the navigation reducers merge their parent's effect with their child's, and a
/// parent that refused must stop the reducers after it, with no effect of the action run.
@Suite struct RefusalThroughMergeTests {
  struct Refused: Error {}

  struct State: Equatable, Sendable {
    var child: Int?
    var log: [String] = []
  }

  enum Action: Equatable, Sendable {
    case child(Int)
    case echo
  }

  static let childCase = ActionCase<Action, Int>(
    embed: Action.child, extract: { if case let .child(n) = $0 { n } else { nil } })

  struct Parent: Reducer {
    var body: some Reducer<State, Action> {
      Reduce { state, action in
        guard case .child(1) = action else { return .none }
        state.log.append("parent refused")
        return .failure(Refused(), sending: nil)
      }
      .ifLet(\.child, action: RefusalThroughMergeTests.childCase) {
        Reduce<Int, Int> { _, _ in .send(2) }  // the child's own effect
      }
      Reduce { state, action in
        if case .child = action { state.log.append("after") }
        return .none
      }
    }
  }

  @Test func aParentsRefusalStopsTheRestThroughIfLet() {
    var state = State(child: 0)
    let effect = Parent().reduce(into: &state, action: .child(1))
    #expect(effect.failure != nil)
    #expect(state.log == ["parent refused"])
  }

  @Test func mergeReturnsTheRefusalAlone() {
    let refusal = Effect<Action>.failure(Refused(), sending: .echo)
    let merged = Effect<Action>.merge(.send(.echo), refusal, .send(.echo))
    #expect(merged.failure != nil)
    #expect(Effect<Action>.merge(.send(.echo), .none).failure == nil)
  }
}
