import Clocks
import Composable
import Foundation
import Testing

/// The counter with a number fact from The Composable Architecture's README, as a Swift reducer
/// with a fact dependency, tested end to end.
@Suite struct NumberFactTests {
  struct NumberFactClient: Sendable {
    var fetch: @Sendable (Int) async throws -> String
  }

  struct Feature: Reducer {
    struct State: Equatable, Sendable {
      var count = 0
      var numberFact: String?
    }

    enum Action: Equatable, Sendable {
      case decrementButtonTapped
      case incrementButtonTapped
      case numberFactButtonTapped
      case numberFactResponse(String)
    }

    let numberFact: NumberFactClient

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .decrementButtonTapped:
        state.count -= 1
        return .none
      case .incrementButtonTapped:
        state.count += 1
        return .none
      case .numberFactButtonTapped:
        return .run { [count = state.count, numberFact] send in
          await send(.numberFactResponse(try await numberFact.fetch(count)))
        } catch: { _, send in
          await send(.numberFactResponse("Could not load a number fact :("))
        }
      case let .numberFactResponse(fact):
        state.numberFact = fact
        return .none
      }
    }
  }

  struct Offline: Error {}

  @Test func countsAndLoadsAFact() async {
    let store = TestStore(initialState: Feature.State()) { _ in
      Feature(numberFact: NumberFactClient { "\($0) is a good number Brent" })
    }
    await store.send(.incrementButtonTapped) { $0.count = 1 }
    await store.send(.decrementButtonTapped) { $0.count = 0 }
    await store.send(.numberFactButtonTapped)
    await store.receive(.numberFactResponse("0 is a good number Brent")) {
      $0.numberFact = "0 is a good number Brent"
    }
  }

  @Test func aFailedFactBecomesAMessage() async {
    let store = TestStore(initialState: Feature.State()) { _ in
      Feature(numberFact: NumberFactClient { _ in throw Offline() })
    }
    await store.send(.numberFactButtonTapped)
    await store.receive(.numberFactResponse("Could not load a number fact :(")) {
      $0.numberFact = "Could not load a number fact :("
    }
  }
}
