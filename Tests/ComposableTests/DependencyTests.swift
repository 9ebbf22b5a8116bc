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

  /// A random source moved to a position gives what it gave from there, for any seed (0, the
  /// largest, one whose state wraps) and any position, forward as well as back; so does an
  /// incrementing UUID generator, past its last count too. Others do not move.
  @Test func generatorsMovedToAPositionGiveWhatTheyGaveFromThere() {
    for seed: UInt64 in [0, 1, 42, .max, 0x9E37_79B9_7F4A_7C15] {
      let source = RandomSource(seed: seed)
      let given = (0..<40).map { _ in source.next() }
      #expect(source.position == 40)
      for position in [0, 1, 17, 39, 40] {
        source.move(to: UInt64(position))
        #expect(source.position == UInt64(position))
        let again = (position..<40).map { _ in source.next() }
        #expect(again == Array(given[position...]), "seed \(seed), position \(position)")
      }
      // Ahead of what it gave: what a fresh source gives after as many.
      source.move(to: 100)
      let fresh = RandomSource(seed: seed)
      for _ in 0..<100 { _ = fresh.next() }
      #expect(source.next() == fresh.next())
      #expect(source.integer(in: 1...6) == fresh.integer(in: 1...6) && source.position == 102)
    }
    let uuid = UUIDGenerator.incrementing(from: UUIDGenerator.incrementingLast)
    #expect(uuid.position == UUIDGenerator.incrementingLast)
    let made = [uuid(), uuid()].map(\.uuidString)
    uuid.move(to: UUIDGenerator.incrementingLast)
    #expect([uuid(), uuid()].map(\.uuidString) == made)
    uuid.move(to: 7)
    #expect(uuid().uuidString == "00000000-0000-0000-0000-000000000007" && uuid.position == 8)
    let fixed = UUIDGenerator { UUID(uuidString: "00000000-0000-0000-0000-0000000000AA")! }
    #expect(fixed.position == nil && UUIDGenerator.live.position == nil)
    fixed.move(to: 3)
    #expect(fixed().uuidString == "00000000-0000-0000-0000-0000000000AA")
    // Through the dependencies, which share the generators with every copy (a store's).
    var values = DependencyValues.test
    values.uuid = .incrementing
    let copy = values
    let start = values.generatorPositions
    let first = (values.uuid(), values.random.next())
    #expect(copy.generatorPositions == GeneratorPositions(uuid: 1, random: 1))
    copy.moveGenerators(to: start)
    #expect(values.uuid() == first.0 && values.random.next() == first.1)
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
