/// The logic of a feature: how an action changes the state, and what work follows.
///
/// `reduce` mutates `state` in place and returns the effect to run; the `Store` runs it. A
/// reducer made of others writes `body` instead, as in TCA 1.x (`ReducerBuilder` combines what
/// it lists, in order, as `CombineReducers` does):
///
/// ```swift
/// struct App: Reducer {
///   var body: some Reducer<AppState, AppAction> {
///     Scope(state: \.counter, action: \.counter) { Counter() }
///     Reduce { state, action in .none }
///   }
/// }
/// ```
public protocol Reducer<State, Action>: SendableMetatype {
  /// The state the reducer changes.
  associatedtype State
  /// The actions the reducer handles.
  associatedtype Action: Sendable
  /// What `body` is made of; `Never` for a reducer that writes `reduce` itself.
  associatedtype Body = Never

  /// Changes `state` for `action`, and returns the work that follows (`.none` for none).
  func reduce(into state: inout State, action: Action) -> Effect<Action>

  /// The reducers this one is made of, run in order; a reducer that writes `reduce` has none.
  @ReducerBuilder<State, Action>
  var body: Body { get }
}

extension Reducer where Body == Never {
  /// A reducer that writes `reduce` has no body; asking for it is a programming error.
  public var body: Never {
    fatalError("\(Self.self) has no body: it is written with reduce(into:action:)")
  }
}

extension Reducer where Body: Reducer, Body.State == State, Body.Action == Action {
  /// A reducer written as a `body` reduces through it.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    body.reduce(into: &state, action: action)
  }
}

/// A reducer from a closure.
public struct Reduce<State, Action: Sendable>: Reducer {
  let closure: (inout State, Action) -> Effect<Action>

  /// A reducer that runs `closure`.
  ///
  /// ```swift
  /// let counter = Reduce<Int, CounterAction> { count, action in
  ///   switch action {
  ///   case .increment: count += 1
  ///   case .decrement: count -= 1
  ///   }
  ///   return .none
  /// }
  /// ```
  public init(_ closure: @escaping (inout State, Action) -> Effect<Action>) {
    self.closure = closure
  }

  /// `reducer` behind the one type `Reduce<State, Action>`: for a choice of reducers whose
  /// types differ.
  ///
  /// ```swift
  /// let reducer = isDebugging ? Reduce(Feature().printChanges()) : Reduce(Feature())
  /// ```
  public init<R: Reducer>(_ reducer: R) where R.State == State, R.Action == Action {
    self.closure = reducer.reduce
  }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    closure(&state, action)
  }
}
