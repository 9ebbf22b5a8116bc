import Composable
import Testing

/// Attacks on scoped stores composed through `ActionEmbedding` types (`ComposedEmbedding`): a
/// store scoped 59 levels deep, mixing `ActionCase`s with an embedding type that holds a
/// stored property, sent to from many tasks at once. Each action must reach the root wrapped
/// once a level, outermost first, each level with its own stored property, and the child's state
/// be read through every level. (Held: this pins it.)
@Suite struct ScopedStoreAttackTests {
  indirect enum Nest: Equatable, Sendable {
    case wrap(tag: Int, Nest)
    case leaf(Int)
  }

  final class Box: Sendable {
    let count: Int
    let inner: Box?
    init(count: Int = -1, inner: Box? = nil) {
      self.count = count
      self.inner = inner
    }
  }

  struct State: Sendable {
    var received: [Nest] = []
    var total = 0
    var box: Box
  }

  /// Records each action as it arrives and adds up the leaves.
  struct Root: Reducer {
    func reduce(into state: inout State, action: Nest) -> Effect<Nest> {
      state.received.append(action)
      var action = action
      while case let .wrap(_, inner) = action { action = inner }
      if case let .leaf(n) = action { state.total += n }
      return .none
    }
  }

  /// An embedding with a stored property: which level wrapped the action.
  struct Wrap: ActionEmbedding {
    let tag: Int
    func embedding(_ child: Nest) -> Nest { .wrap(tag: tag, child) }
  }
  static let wrapCase = ActionCase<Nest, Nest>(
    embed: { .wrap(tag: -1, $0) },
    extract: { if case let .wrap(_, inner) = $0 { inner } else { nil } })

  /// What a leaf sent 59 levels down must be at the root.
  static func expected(_ n: Int) -> Nest {
    var action = Nest.leaf(n)
    for level in (1..<60).reversed() {
      action = .wrap(tag: level % 3 == 0 ? -1 : level, action)
    }
    return action
  }

  @Test func manyLevelsDeepFromManyTasksAtOnce() async {
    // Boxes nested as deep as the scopes: the innermost counts 42.
    var box = Box(count: 42)
    for level in (1..<59).reversed() { box = Box(count: level, inner: box) }
    let root = Store(initialState: State(box: box), reducer: Root())
    let s1 = root.scope(state: { $0.box }, action: Wrap(tag: 1))
    let s2 = s1.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 2))
    let s3 = s2.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s4 = s3.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 4))
    let s5 = s4.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 5))
    let s6 = s5.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s7 = s6.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 7))
    let s8 = s7.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 8))
    let s9 = s8.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s10 = s9.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 10))
    let s11 = s10.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 11))
    let s12 = s11.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s13 = s12.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 13))
    let s14 = s13.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 14))
    let s15 = s14.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s16 = s15.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 16))
    let s17 = s16.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 17))
    let s18 = s17.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s19 = s18.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 19))
    let s20 = s19.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 20))
    let s21 = s20.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s22 = s21.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 22))
    let s23 = s22.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 23))
    let s24 = s23.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s25 = s24.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 25))
    let s26 = s25.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 26))
    let s27 = s26.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s28 = s27.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 28))
    let s29 = s28.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 29))
    let s30 = s29.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s31 = s30.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 31))
    let s32 = s31.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 32))
    let s33 = s32.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s34 = s33.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 34))
    let s35 = s34.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 35))
    let s36 = s35.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s37 = s36.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 37))
    let s38 = s37.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 38))
    let s39 = s38.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s40 = s39.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 40))
    let s41 = s40.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 41))
    let s42 = s41.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s43 = s42.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 43))
    let s44 = s43.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 44))
    let s45 = s44.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s46 = s45.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 46))
    let s47 = s46.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 47))
    let s48 = s47.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s49 = s48.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 49))
    let s50 = s49.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 50))
    let s51 = s50.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s52 = s51.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 52))
    let s53 = s52.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 53))
    let s54 = s53.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s55 = s54.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 55))
    let s56 = s55.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 56))
    let s57 = s56.scope(state: { $0.inner ?? Box() }, action: Self.wrapCase)
    let s58 = s57.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 58))
    let s59 = s58.scope(state: { $0.inner ?? Box() }, action: Wrap(tag: 59))
    let deep = s59
    #expect(await deep.state.count == 42)
    #expect(await s1.state.count == 1)
    await withTaskGroup(of: Void.self) { group in
      for n in 1...200 { group.addTask { await deep.send(.leaf(n)) } }
      for n in 1...50 { group.addTask { await s58.send(.leaf(1000 + n)) } }
    }
    let state = await root.state
    #expect(state.received.count == 250)
    #expect(state.total == 200 * 201 / 2 + 50 * 1000 + 50 * 51 / 2)
    let deepOnes = state.received.filter { action in
      var depth = 0
      var action = action
      while case let .wrap(_, inner) = action {
        depth += 1
        action = inner
      }
      return depth == 59
    }
    #expect(deepOnes.count == 200)
    for action in deepOnes {
      var leaf = action
      while case let .wrap(_, inner) = leaf { leaf = inner }
      guard case let .leaf(n) = leaf else { continue }
      #expect(action == Self.expected(n))
    }
  }
}
