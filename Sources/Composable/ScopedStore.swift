/// A view of a store limited to a child: the child's state, and child actions that reach the
/// root store embedded in root actions. Scoping again composes the mapping once, so a store
/// scoped ten levels deep still costs one closure chain and one root send.
public struct ScopedStore<
  RootState: Sendable, RootAction: Sendable, State: Sendable, Action: Sendable
>: Sendable {
  /// The store this one is a view of: where actions go, and where the state is read.
  public let root: Store<RootState, RootAction>
  @usableFromInline let toState: @Sendable (RootState) -> State
  @usableFromInline let toRootAction: @Sendable (Action) -> RootAction

  // Inlinable, like the scoping below, so that the code using a scoped store specializes the
  // composed mappings for its concrete types: unspecialized, every level of nesting pays for
  // looking up generic metadata.
  @usableFromInline
  init(
    root: Store<RootState, RootAction>, toState: @escaping @Sendable (RootState) -> State,
    toRootAction: @escaping @Sendable (Action) -> RootAction
  ) {
    self.root = root
    self.toState = toState
    self.toRootAction = toRootAction
  }

  /// Sends `action` to the root store, embedded in a root action; returns its effects' handle.
  ///
  /// ```swift
  /// await counterStore.send(.increment)
  /// ```
  @inlinable @discardableResult
  public func send(_ action: Action) async -> StoreTask {
    await root.send(toRootAction(action))
  }

  /// Sends from code already running on the root store (`root.withIsolation`), without a hop.
  @inlinable @discardableResult
  public func send(
    _ action: Action, isolation root: isolated Store<RootState, RootAction>
  ) -> StoreTask {
    root.send(toRootAction(action))
  }

  /// The child's state, taken from the root store's current state.
  public var state: State {
    get async { toState(await root.state) }
  }

  /// A store limited to a child of this child; the mappings compose into one.
  ///
  /// ```swift
  /// let alerts = settingsStore.scope(state: { $0.alerts }, action: Settings.alertsCase)
  /// ```
  @inlinable
  public func scope<ChildState: Sendable, ChildAction: Sendable>(
    state: @escaping @Sendable (State) -> ChildState,
    action: ActionCase<Action, ChildAction>
  ) -> ScopedStore<RootState, RootAction, ChildState, ChildAction> {
    let toState = self.toState
    let toRootAction = self.toRootAction
    let embed = action.embed
    return ScopedStore<RootState, RootAction, ChildState, ChildAction>(
      root: root, toState: { state(toState($0)) }, toRootAction: { toRootAction(embed($0)) })
  }
}

extension Store {
  /// A store limited to a child of this one.
  ///
  /// ```swift
  /// let counterStore = store.scope(state: { $0.counter }, action: App.counterCase)
  /// ```
  @inlinable
  public nonisolated func scope<ChildState: Sendable, ChildAction: Sendable>(
    state: @escaping @Sendable (State) -> ChildState,
    action: ActionCase<Action, ChildAction>
  ) -> ScopedStore<State, Action, ChildState, ChildAction> {
    ScopedStore(root: self, toState: state, toRootAction: action.embed)
  }
}
