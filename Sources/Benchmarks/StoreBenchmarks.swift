import Composable
import Foundation

/// A send through the root Store, through a store scoped ten levels deep, and a plain call of
/// the same reducer for context.
enum StoreBenchmarks {
  enum CounterAction: Equatable, Sendable { case increment, decrement }

  struct Counter: Reducer {
    func reduce(into state: inout Int, action: CounterAction) -> Effect<CounterAction> {
      switch action {
      case .increment: state += 1
      case .decrement: state -= 1
      }
      return .none
    }
  }

  /// Reaching the counter action inside any depth of nesting.
  protocol Nested: Sendable { var leaf: CounterAction { get } }

  /// The counter over the action nested ten deep. Concrete rather than generic over `Nested`:
  /// a generic reducer runs unspecialized behind the store's `any Reducer`, and its ten
  /// dynamic `leaf` calls would be timed instead of the scoping.
  struct NestedCounter: Reducer {
    func reduce(into state: inout Int, action: A10) -> Effect<A10> {
      if action.leaf == .increment { state += 1 } else { state -= 1 }
      return .none
    }
  }

  // Ten levels of action nesting, each a concrete enum as a real feature would have: a parent
  // action that carries a child's.
  enum A1: Sendable, Nested {
    case child(CounterAction)
    var leaf: CounterAction {
      switch self {
      case let .child(child): child.leaf
      }
    }
    static let level = ActionCase<A1, CounterAction>(
      embed: A1.child, extract: { if case let .child(child) = $0 { child } else { nil } })
    struct Embedding: ActionEmbedding {
      func embedding(_ child: CounterAction) -> A1 { .child(child) }
    }
  }
  enum A2: Sendable, Nested {
    case child(A1)
    var leaf: CounterAction {
      switch self {
      case let .child(child): child.leaf
      }
    }
    static let level = ActionCase<A2, A1>(
      embed: A2.child, extract: { if case let .child(child) = $0 { child } else { nil } })
    struct Embedding: ActionEmbedding {
      func embedding(_ child: A1) -> A2 { .child(child) }
    }
  }
  enum A3: Sendable, Nested {
    case child(A2)
    var leaf: CounterAction {
      switch self {
      case let .child(child): child.leaf
      }
    }
    static let level = ActionCase<A3, A2>(
      embed: A3.child, extract: { if case let .child(child) = $0 { child } else { nil } })
    struct Embedding: ActionEmbedding {
      func embedding(_ child: A2) -> A3 { .child(child) }
    }
  }
  enum A4: Sendable, Nested {
    case child(A3)
    var leaf: CounterAction {
      switch self {
      case let .child(child): child.leaf
      }
    }
    static let level = ActionCase<A4, A3>(
      embed: A4.child, extract: { if case let .child(child) = $0 { child } else { nil } })
    struct Embedding: ActionEmbedding {
      func embedding(_ child: A3) -> A4 { .child(child) }
    }
  }
  enum A5: Sendable, Nested {
    case child(A4)
    var leaf: CounterAction {
      switch self {
      case let .child(child): child.leaf
      }
    }
    static let level = ActionCase<A5, A4>(
      embed: A5.child, extract: { if case let .child(child) = $0 { child } else { nil } })
    struct Embedding: ActionEmbedding {
      func embedding(_ child: A4) -> A5 { .child(child) }
    }
  }
  enum A6: Sendable, Nested {
    case child(A5)
    var leaf: CounterAction {
      switch self {
      case let .child(child): child.leaf
      }
    }
    static let level = ActionCase<A6, A5>(
      embed: A6.child, extract: { if case let .child(child) = $0 { child } else { nil } })
    struct Embedding: ActionEmbedding {
      func embedding(_ child: A5) -> A6 { .child(child) }
    }
  }
  enum A7: Sendable, Nested {
    case child(A6)
    var leaf: CounterAction {
      switch self {
      case let .child(child): child.leaf
      }
    }
    static let level = ActionCase<A7, A6>(
      embed: A7.child, extract: { if case let .child(child) = $0 { child } else { nil } })
    struct Embedding: ActionEmbedding {
      func embedding(_ child: A6) -> A7 { .child(child) }
    }
  }
  enum A8: Sendable, Nested {
    case child(A7)
    var leaf: CounterAction {
      switch self {
      case let .child(child): child.leaf
      }
    }
    static let level = ActionCase<A8, A7>(
      embed: A8.child, extract: { if case let .child(child) = $0 { child } else { nil } })
    struct Embedding: ActionEmbedding {
      func embedding(_ child: A7) -> A8 { .child(child) }
    }
  }
  enum A9: Sendable, Nested {
    case child(A8)
    var leaf: CounterAction {
      switch self {
      case let .child(child): child.leaf
      }
    }
    static let level = ActionCase<A9, A8>(
      embed: A9.child, extract: { if case let .child(child) = $0 { child } else { nil } })
    struct Embedding: ActionEmbedding {
      func embedding(_ child: A8) -> A9 { .child(child) }
    }
  }
  enum A10: Sendable, Nested {
    case child(A9)
    var leaf: CounterAction {
      switch self {
      case let .child(child): child.leaf
      }
    }
    static let level = ActionCase<A10, A9>(
      embed: A10.child, extract: { if case let .child(child) = $0 { child } else { nil } })
    struct Embedding: ActionEmbedding {
      func embedding(_ child: A9) -> A10 { .child(child) }
    }
  }

  static let iterations = 1_000_000

  static func run() async throws -> [Figure] {
    let root = Store(initialState: 0, reducer: Counter())
    let nestedRoot = Store(initialState: 0, reducer: NestedCounter())
    let scoped = nestedRoot.scope(state: { $0 }, action: A10.level)
      .scope(state: { $0 }, action: A9.level)
      .scope(state: { $0 }, action: A8.level)
      .scope(state: { $0 }, action: A7.level)
      .scope(state: { $0 }, action: A6.level)
      .scope(state: { $0 }, action: A5.level)
      .scope(state: { $0 }, action: A4.level)
      .scope(state: { $0 }, action: A3.level)
      .scope(state: { $0 }, action: A2.level)
      .scope(state: { $0 }, action: A1.level)

    // The same ten levels through `ActionEmbedding` types: the embedding compiles away.
    let staticRoot = Store(initialState: 0, reducer: NestedCounter())
    let staticScoped = staticRoot.scope(state: { $0 }, action: A10.Embedding())
      .scope(state: { $0 }, action: A9.Embedding())
      .scope(state: { $0 }, action: A8.Embedding())
      .scope(state: { $0 }, action: A7.Embedding())
      .scope(state: { $0 }, action: A6.Embedding())
      .scope(state: { $0 }, action: A5.Embedding())
      .scope(state: { $0 }, action: A4.Embedding())
      .scope(state: { $0 }, action: A3.Embedding())
      .scope(state: { $0 }, action: A2.Embedding())
      .scope(state: { $0 }, action: A1.Embedding())

    var rootSamples: [Double] = []
    var scopedSamples: [Double] = []
    var staticSamples: [Double] = []
    var plainSamples: [Double] = []
    for _ in 0..<7 {
      rootSamples.append(
        await root.withIsolation { store in
          time { for _ in 0..<iterations { store.send(.increment) } }
        })
      scopedSamples.append(
        await nestedRoot.withIsolation { store in
          time { for _ in 0..<iterations { scoped.send(.increment, isolation: store) } }
        })
      staticSamples.append(
        await staticRoot.withIsolation { store in
          time { for _ in 0..<iterations { staticScoped.send(.increment, isolation: store) } }
        })
      plainSamples.append(plainCall())
    }
    let rootNanoseconds = median(rootSamples)
    let scopedNanoseconds = median(scopedSamples)
    let staticNanoseconds = median(staticSamples)
    let (rootCount, nestedCount) = (await root.state, await nestedRoot.state)
    let staticCount = await staticRoot.state
    precondition(
      rootCount > iterations && nestedCount > iterations && staticCount > iterations,
      "the stores did not count")
    return [
      Figure(name: "store.send.root_ns", value: rootNanoseconds, unit: "ns"),
      Figure(name: "store.send.scoped10_ns", value: scopedNanoseconds, unit: "ns"),
      Figure(
        name: "store.send.scoped10_ratio", value: scopedNanoseconds / rootNanoseconds, unit: "x"),
      Figure(name: "store.send.scoped10_embedding_ns", value: staticNanoseconds, unit: "ns"),
      Figure(
        name: "store.send.scoped10_embedding_ratio", value: staticNanoseconds / rootNanoseconds,
        unit: "x"),
      Figure(name: "store.call.plain_ns", value: median(plainSamples), unit: "ns"),
    ]
  }

  /// Nanoseconds per iteration of `body`, which runs `iterations` times.
  static func time(iterations: Int = iterations, _ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations)
  }

  /// The reducer called directly, through its protocol as the store calls it.
  static func plainCall() -> Double {
    let reducer: any Reducer<Int, CounterAction> = Counter()
    var state = 0
    let nanoseconds = time {
      for _ in 0..<iterations { _ = call(reducer, &state) }
    }
    precondition(state == iterations)
    return nanoseconds
  }

  @inline(never)
  static func call(
    _ reducer: any Reducer<Int, CounterAction>, _ state: inout Int
  ) -> Effect<CounterAction> {
    reducer.reduce(into: &state, action: .increment)
  }

  static func median(_ samples: [Double]) -> Double { samples.sorted()[samples.count / 2] }
}

extension StoreBenchmarks.CounterAction: StoreBenchmarks.Nested {
  var leaf: StoreBenchmarks.CounterAction { self }
}
