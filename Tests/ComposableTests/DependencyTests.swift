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

  /// `incrementing(from:)` begins where told, and goes on from 0 past the last UUID of the form
  /// rather than trapping; `incrementingCount` reads back exactly the UUIDs it makes.
  @Test func incrementingFromACountAndBack() {
    let last = UUIDGenerator.incrementingLast
    let generator = UUIDGenerator.incrementing(from: last - 1)
    #expect(
      [generator(), generator(), generator()].map(\.uuidString) == [
        "00000000-0000-0000-0000-FFFFFFFFFFFE", "00000000-0000-0000-0000-FFFFFFFFFFFF",
        "00000000-0000-0000-0000-000000000000",
      ])
    for count: UInt64 in [0, 1, 9, 10, 0xABC, last] {
      let text = UUIDGenerator.incrementing(from: count)().uuidString
      #expect(UUIDGenerator.incrementingCount(text) == count)
      #expect(UUIDGenerator.incrementingCount(text.lowercased()) == count)
    }
    for text in [
      "", "00000000-0000-0000-0000-00000000000", "00000000-0000-0000-0000-0000000000000",
      "00000000-0000-0000-0001-000000000000", "00000000-0000-0000-0000-00000000000G",
      "00000000-0000-0000-0000-0000000000-1", "00000000-0000-0000-0000-00000000000\u{FF11}",
      "10000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-+00000000001",
      "00000000-0000-0000-0000-0000000000 1",
    ] {
      #expect(UUIDGenerator.incrementingCount(text) == nil, "\(text)")
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
