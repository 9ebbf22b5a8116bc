/// Builds a reducer's `body` from the reducers it lists: they run in order on the same state
/// and action, as `CombineReducers` runs them (a refusal, `Effect.failure`, stops the rest and
/// drops the effects before it), with `if`, `if`/`else`, `switch` and `for` allowed.
///
/// ```swift
/// var body: some Reducer<State, Action> {
///   Scope(state: \.todos, action: \.todos) { todos }
///   if logsActions { Reduce { _, action in print(action); return .none } }
///   Reduce { state, action in ... }
/// }
/// ```
@resultBuilder
public enum ReducerBuilder<State, Action: Sendable> {
  /// A body that lists nothing does nothing.
  public static func buildBlock() -> EmptyReducer<State, Action> { EmptyReducer() }

  /// A reducer as it is listed.
  public static func buildExpression<R: Reducer<State, Action>>(_ reducer: R) -> R { reducer }

  /// The first reducer of a list.
  public static func buildPartialBlock<R: Reducer<State, Action>>(first: R) -> R { first }

  /// The reducers so far, then the next one.
  public static func buildPartialBlock<
    First: Reducer<State, Action>, Next: Reducer<State, Action>
  >(accumulated: First, next: Next) -> ReducerSequence<First, Next> {
    ReducerSequence(first: accumulated, second: next)
  }

  /// An `if` without `else`: the reducer when the condition held.
  public static func buildOptional<R: Reducer<State, Action>>(
    _ reducer: R?
  ) -> OptionalReducer<R> {
    OptionalReducer(wrapped: reducer)
  }

  /// The first branch of an `if`/`else` or a `switch`.
  public static func buildEither<First: Reducer<State, Action>, Second: Reducer<State, Action>>(
    first: First
  ) -> EitherReducer<First, Second> {
    .first(first)
  }

  /// The second branch of an `if`/`else` or a `switch`.
  public static func buildEither<First: Reducer<State, Action>, Second: Reducer<State, Action>>(
    second: Second
  ) -> EitherReducer<First, Second> {
    .second(second)
  }

  /// A `for` loop's reducers, in order.
  public static func buildArray<R: Reducer<State, Action>>(
    _ reducers: [R]
  ) -> CombineReducers<State, Action> {
    CombineReducers(reducers)
  }

  /// An `if #available` branch.
  public static func buildLimitedAvailability<R: Reducer<State, Action>>(
    _ reducer: R
  ) -> R {
    reducer
  }
}

/// Two reducers in order, as a `body` lists them: `second` does not run when `first` refuses the
/// action, and `first`'s effects are dropped when `second` refuses it (`CombineReducers`).
public struct ReducerSequence<First: Reducer, Second: Reducer<First.State, First.Action>>: Reducer {
  let first: First
  let second: Second

  /// Runs `first`, then `second` (what a `body` of two reducers builds):
  ///
  /// ```swift
  /// let both = ReducerSequence(first: Scope(state: \.counter, action: \.counter) { Counter() },
  ///   second: Reduce { state, action in .none })
  /// ```
  public init(first: First, second: Second) {
    self.first = first
    self.second = second
  }

  public func reduce(
    into state: inout First.State, action: First.Action
  ) -> Effect<First.Action> {
    let firstEffect = first.reduce(into: &state, action: action)
    if firstEffect.failure != nil { return firstEffect }
    let secondEffect = second.reduce(into: &state, action: action)
    if secondEffect.failure != nil || firstEffect.isNone { return secondEffect }
    if secondEffect.isNone { return firstEffect }
    return .merge(firstEffect, secondEffect)
  }
}

/// A reducer an `if` lists: it runs when it was made (the condition held), else nothing runs.
public struct OptionalReducer<Wrapped: Reducer>: Reducer {
  let wrapped: Wrapped?

  public func reduce(
    into state: inout Wrapped.State, action: Wrapped.Action
  ) -> Effect<Wrapped.Action> {
    wrapped?.reduce(into: &state, action: action) ?? .none
  }
}

/// The branch of an `if`/`else` or a `switch` a body took.
public enum EitherReducer<First: Reducer, Second: Reducer<First.State, First.Action>>: Reducer {
  /// The first branch.
  case first(First)
  /// The second branch.
  case second(Second)

  public func reduce(
    into state: inout First.State, action: First.Action
  ) -> Effect<First.Action> {
    switch self {
    case let .first(reducer): reducer.reduce(into: &state, action: action)
    case let .second(reducer): reducer.reduce(into: &state, action: action)
    }
  }
}
