/// How a child's action reaches its parent: wrapped in the parent's case for it. What a scoped
/// store needs of an action case (it sends, and never extracts).
///
/// `ActionCase` is one, holding its embedding as a closure. A type that embeds in code of its
/// own is another: a store scoped through such types, however deep, compiles its embedding
/// down to the nesting of the enums, with no call a level.
///
/// ```swift
/// struct CounterCase: ActionEmbedding {
///   func embedding(_ action: Counter.Action) -> AppAction { .counter(action) }
/// }
/// let counterStore = store.scope(state: { $0.counter }, action: CounterCase())
/// ```
public protocol ActionEmbedding<Parent, Child>: Sendable {
  /// The parent's action, which holds the child's.
  associatedtype Parent
  /// The child's action.
  associatedtype Child
  /// `child` wrapped in the parent's case for it.
  func embedding(_ child: Child) -> Parent
}

extension ActionCase: ActionEmbedding {
  /// `embed(child)`.
  @inlinable
  public func embedding(_ child: Value) -> Root { embed(child) }
}

/// One embedding after another: `inner` wraps a grandchild's action in the child's, `outer` the
/// child's in the parent's. What scoping a scoped store composes, as a type: specialized, the
/// chain inlines.
public struct ComposedEmbedding<Outer: ActionEmbedding, Inner: ActionEmbedding>: ActionEmbedding
where Outer.Child == Inner.Parent {
  @usableFromInline let outer: Outer
  @usableFromInline let inner: Inner

  @inlinable
  init(outer: Outer, inner: Inner) {
    self.outer = outer
    self.inner = inner
  }

  /// `outer.embedding(inner.embedding(child))`.
  @inlinable
  public func embedding(_ child: Inner.Child) -> Outer.Parent {
    outer.embedding(inner.embedding(child))
  }
}
