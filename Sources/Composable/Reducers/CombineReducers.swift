/// Runs reducers one after another on the same state and action, merging their effects.
///
/// A reducer that refuses the action (its effect is an `Effect.failure`, as a Lua feature's is
/// when it raises) stops the rest: the reducers after it do not run for this action, and the
/// effects of those before it are dropped; the failure is the result. So a parent whose own
/// logic follows its child (`CombineReducers(Scope(...) { child }, Reduce { ... })`, the order
/// TCA uses) never counts an action its child refused. What reducers before it wrote to the
/// state stays: put the child first.
public struct CombineReducers<State, Action: Sendable>: Reducer {
  let reducers: [any Reducer<State, Action>]

  /// Combines `reducers`, run in the order given.
  ///
  /// ```swift
  /// CombineReducers<App.State, App.Action>(
  ///   Scope(state: \App.State.counter, action: App.counterCase) { Counter() },
  ///   Reduce<App.State, App.Action> { state, action in
  ///     state.actionCount += 1
  ///     return .none
  ///   })
  /// ```
  public init(_ reducers: any Reducer<State, Action>...) { self.reducers = reducers }

  /// Combines `reducers`, run in the order of the array.
  ///
  /// ```swift
  /// let reducer = CombineReducers<App.State, App.Action>(plugins.map(\.reducer))
  /// ```
  public init(_ reducers: [any Reducer<State, Action>]) { self.reducers = reducers }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    var effects: [Effect<Action>] = []
    for reducer in reducers {
      let effect = reducer.reduce(into: &state, action: action)
      if effect.isNone { continue }
      if effect.failure != nil { return effect }
      effects.append(effect)
    }
    return .merge(effects)
  }
}

extension Reducer {
  /// This reducer, then `other`, on the same state and action.
  ///
  /// ```swift
  /// let reducer = Scope(state: \App.State.counter, action: App.counterCase) { Counter() }
  ///   .combined(with: appLogic)
  /// ```
  public func combined(with other: some Reducer<State, Action>) -> CombineReducers<State, Action> {
    CombineReducers(self, other)
  }
}
