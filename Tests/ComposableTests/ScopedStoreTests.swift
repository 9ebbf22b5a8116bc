import Composable
import Testing

/// Scoped stores: a child's view of a root store, its actions embedded by `ActionCase`s,
/// `ActionEmbedding` types of a feature's own, or both, composed at each `scope`.
@Suite struct ScopedStoreTests {
  enum Leaf: Equatable, Sendable { case add(Int) }
  enum Middle: Equatable, Sendable {
    case leaf(Leaf)
    case reset
  }
  enum Top: Equatable, Sendable {
    case middle(Middle)
    case log(String)
  }

  struct State: Equatable, Sendable {
    var count = 0
    var log: [String] = []
  }

  /// Counts what reaches it, and logs each action as it arrived: nested as the root got it.
  struct Root: Reducer {
    func reduce(into state: inout State, action: Top) -> Effect<Top> {
      switch action {
      case let .middle(.leaf(.add(amount))):
        state.count += amount
        state.log.append("add \(amount)")
      case .middle(.reset):
        state.count = 0
        state.log.append("reset")
      case let .log(text):
        state.log.append(text)
      }
      return .none
    }
  }

  /// The middle level's case, as a type: no closure.
  struct MiddleCase: ActionEmbedding {
    func embedding(_ child: Middle) -> Top { .middle(child) }
  }
  /// The leaf's case, as a type.
  struct LeafCase: ActionEmbedding {
    func embedding(_ child: Leaf) -> Middle { .leaf(child) }
  }
  static let middleCase = ActionCase<Top, Middle>(
    embed: Top.middle, extract: { if case let .middle(action) = $0 { action } else { nil } })
  static let leafCase = ActionCase<Middle, Leaf>(
    embed: Middle.leaf, extract: { if case let .leaf(action) = $0 { action } else { nil } })

  @Test func embeddingTypesReachTheRootNested() async {
    let store = Store(initialState: State(), reducer: Root())
    let middle = store.scope(state: { $0 }, action: MiddleCase())
    let leaf = middle.scope(state: { $0.count }, action: LeafCase())
    await leaf.send(.add(3))
    await middle.send(.reset)
    await leaf.send(.add(4))
    #expect(await leaf.state == 4)
    #expect(await store.state.log == ["add 3", "reset", "add 4"])
    #expect(leaf.embedding.embedding(.add(1)) == .middle(.leaf(.add(1))))
  }

  /// An `ActionCase` and an `ActionEmbedding` type compose, in either order.
  @Test(arguments: [false, true])
  func actionCasesAndEmbeddingTypesCompose(caseFirst: Bool) async {
    let store = Store(initialState: State(), reducer: Root())
    let send: @Sendable (Leaf) async -> Void
    if caseFirst {
      let leaf = store.scope(state: { $0 }, action: Self.middleCase)
        .scope(state: { $0.count }, action: LeafCase())
      #expect(leaf.embedding.embedding(.add(2)) == .middle(.leaf(.add(2))))
      send = { await leaf.send($0) }
    } else {
      let leaf = store.scope(state: { $0 }, action: MiddleCase())
        .scope(state: { $0.count }, action: Self.leafCase)
      #expect(leaf.embedding.embedding(.add(2)) == .middle(.leaf(.add(2))))
      send = { await leaf.send($0) }
    }
    await send(.add(2))
    await send(.add(5))
    #expect(await store.state == State(count: 7, log: ["add 2", "add 5"]))
  }

  /// Sending from the root's executor reduces at once, as the root's own send does.
  @Test func aSendOnTheRootsExecutorReducesAtOnce() async {
    let store = Store(initialState: State(), reducer: Root())
    let leaf = store.scope(state: { $0 }, action: MiddleCase())
      .scope(state: { $0.count }, action: Self.leafCase)
    let counts = await store.withIsolation { root in
      (1...3).map { amount in
        leaf.send(.add(amount), isolation: root)
        return root.state.count
      }
    }
    #expect(counts == [1, 3, 6])
  }
}
