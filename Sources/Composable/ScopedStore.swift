/// A view of a store limited to a child: the child's state, and child actions that reach the
/// root store embedded in root actions.
///
/// Scoping again composes the embeddings into one value of a type of its own
/// (`ComposedEmbedding`), not a chain of closures: specialized where the store is used, a
/// store scoped ten levels deep through `ActionEmbedding` types embeds with no call at all, and
/// through `ActionCase`s with one call a level (each case's closure).
public struct ScopedStore<
  RootState: Sendable, RootAction: Sendable, State: Sendable, Action: Sendable,
  Embedding: ActionEmbedding<RootAction, Action>
>: Sendable {
  /// The store this one is a view of: where actions go, and where the state is read.
  public let root: Store<RootState, RootAction>
  @usableFromInline let toState: @Sendable (RootState) -> State
  /// How this store's actions are wrapped into the root's.
  public let embedding: Embedding

  // Inlinable, like the scoping below, so that the code using a scoped store specializes the
  // composed embedding for its concrete types: unspecialized, every level of nesting pays for
  // looking up generic metadata.
  @usableFromInline
  init(
    root: Store<RootState, RootAction>, toState: @escaping @Sendable (RootState) -> State,
    embedding: Embedding
  ) {
    self.root = root
    self.toState = toState
    self.embedding = embedding
  }

  /// Sends `action` to the root store, embedded in a root action; returns its effects' handle.
  ///
  /// ```swift
  /// await counterStore.send(.increment)
  /// ```
  @inlinable @discardableResult
  public func send(_ action: Action) async -> StoreTask {
    await root.send(embedding.embedding(action))
  }

  /// Sends from code already running on the root store (`root.withIsolation`), without a hop.
  @inlinable @discardableResult
  public func send(
    _ action: Action, isolation root: isolated Store<RootState, RootAction>
  ) -> StoreTask {
    root.send(embedding.embedding(action))
  }

  /// The child's state, taken from the root store's current state.
  public var state: State {
    get async { toState(await root.state) }
  }

  /// A store limited to a child of this child; the embeddings compose into one.
  ///
  /// ```swift
  /// let alerts = settingsStore.scope(state: { $0.alerts }, action: Settings.alertsCase)
  /// ```
  @inlinable
  public func scope<ChildState: Sendable, Child: ActionEmbedding<Action, Child.Child>>(
    state: @escaping @Sendable (State) -> ChildState, action: Child
  ) -> ScopedStore<
    RootState, RootAction, ChildState, Child.Child, ComposedEmbedding<Embedding, Child>
  > {
    let toState = self.toState
    return ScopedStore<
      RootState, RootAction, ChildState, Child.Child, ComposedEmbedding<Embedding, Child>
    >(
      root: root, toState: { state(toState($0)) },
      embedding: ComposedEmbedding(outer: embedding, inner: action))
  }
}

extension Store {
  /// A store limited to a child of this one: its state from `state`, its actions embedded by
  /// `action` (an `ActionCase`, or an `ActionEmbedding` type of your own).
  ///
  /// ```swift
  /// let counterStore = store.scope(state: { $0.counter }, action: App.counterCase)
  /// ```
  @inlinable
  public nonisolated func scope<ChildState: Sendable, Child: ActionEmbedding<Action, Child.Child>>(
    state: @escaping @Sendable (State) -> ChildState, action: Child
  ) -> ScopedStore<State, Action, ChildState, Child.Child, Child> {
    ScopedStore(root: self, toState: state, embedding: action)
  }
}
