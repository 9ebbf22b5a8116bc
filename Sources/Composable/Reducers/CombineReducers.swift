/// Runs reducers one after another on the same state and action, merging their effects.
public struct CombineReducers<State, Action: Sendable>: Reducer {
  let reducers: [any Reducer<State, Action>]

  public init(_ reducers: any Reducer<State, Action>...) { self.reducers = reducers }

  public init(_ reducers: [any Reducer<State, Action>]) { self.reducers = reducers }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    var effects: [Effect<Action>] = []
    for reducer in reducers {
      let effect = reducer.reduce(into: &state, action: action)
      if !effect.isNone { effects.append(effect) }
    }
    return .merge(effects)
  }
}

extension Reducer {
  /// This reducer, then `other`, on the same state and action.
  public func combined(with other: some Reducer<State, Action>) -> CombineReducers<State, Action> {
    CombineReducers(self, other)
  }
}
