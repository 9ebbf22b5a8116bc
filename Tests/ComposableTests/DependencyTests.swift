import Clocks
import Composable
import Foundation
import Testing

@Suite struct DependencyTests {
  struct Model: Equatable, Sendable {
    var ids: [UUID] = []
    var createdAt: Date?
  }

  enum Action: Equatable, Sendable { case add }

  struct Feature: Reducer {
    let uuid: UUIDGenerator
    let date: DateGenerator

    func reduce(into state: inout Model, action: Action) -> Effect<Action> {
      state.ids.append(uuid())
      state.createdAt = date.now
      return .none
    }
  }

  @Test func testsOverrideDependenciesPerStore() async {
    let store = TestStore(
      initialState: Model(),
      reducer: { Feature(uuid: $0.uuid, date: $0.date) },
      dependencies: {
        $0.uuid = .incrementing
        $0.date = .constant(Date(timeIntervalSince1970: 1_000))
      })
    await store.send(.add) {
      $0.ids = [UUID(uuidString: "00000000-0000-0000-0000-000000000000")!]
      $0.createdAt = Date(timeIntervalSince1970: 1_000)
    }
    await store.send(.add) {
      $0.ids.append(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)
    }
  }

  @Test func anUnprovidedDependencyFailsTheTestWithAHint() async {
    let store = TestStore(
      initialState: Model(), reducer: { Feature(uuid: $0.uuid, date: $0.date) },
      dependencies: { $0.date = .constant(Date(timeIntervalSince1970: 0)) })
    await withKnownIssue {
      await store.send(.add) {
        $0.ids = [UUID(uuidString: "DEADBEEF-DEAD-BEEF-DEAD-BEEFDEADBEEF")!]
        $0.createdAt = Date(timeIntervalSince1970: 0)
      }
    } matching: { issue in
      message(of: issue) == """
        A test used "uuid" without providing it.

        To fix, give the store a UUID generator, for instance with \
        "dependencies: { $0.uuid = .incrementing }".
        """
    }
  }

  struct Greeting: DependencyKey {
    static let liveValue = "hello"
    static let testValue = "test hello"
  }

  @Test func appDependenciesHaveLiveAndTestValues() {
    var live = DependencyValues.live
    var test = DependencyValues.test
    #expect(live[Greeting.self] == "hello")
    #expect(test[Greeting.self] == "test hello")
    test[Greeting.self] = "overridden"
    live[Greeting.self] = "changed"
    #expect(test[Greeting.self] == "overridden")
    #expect(live[Greeting.self] == "changed")
  }
}
