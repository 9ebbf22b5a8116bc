import Composable
import Foundation
import IssueReporting
import LuaKit

/// A Lua feature with Swift types on its edges: a `Codable` state struct (or a
/// `LuaFeatureHandle`, the state staying in Lua), and an action enum that crosses into Lua in
/// the action shape (`case add(amount: Int)` is `{ type = "add", amount = 3 }`): pushed field by
/// field when it is `LuaActionConvertible`, encoded otherwise. Actions that Lua effects send
/// back are decoded into the enum; one that does not decode is reported and dropped.
public struct LuaFeatureCodableReducer<State: Sendable, Action: Codable & Sendable>: Reducer {
  /// The feature this reducer runs.
  public let feature: LuaFeature
  /// What each action's step is given (see `LuaFeatureReducer.context`), made once.
  let context: LuaStepContext
  var onError: @Sendable (LuaFeatureError) -> Void { context.onError }
  /// Reads the state after an action; nil for a store that holds a `LuaFeatureHandle`.
  let readState: (@Sendable (LuaFeature) throws(LuaFeatureError) -> State)?
  /// How an action crosses into Lua: typed or encoded, chosen by the initializer.
  let crossing: @Sendable (Action) -> LuaFeatureAction
  /// The action to send when the feature refuses one (`sendingOnFailure`), after the failure.
  var failureAction: (@Sendable (LuaFeatureError) -> Action?)?

  init(
    feature: LuaFeature, dependencies: DependencyValues,
    onError: @escaping @Sendable (LuaFeatureError) -> Void,
    readState: (@Sendable (LuaFeature) throws(LuaFeatureError) -> State)?,
    crossing: @escaping @Sendable (Action) -> LuaFeatureAction
  ) {
    self.feature = feature
    self.context = LuaStepContext(
      dependencies: LuaFeatureDependencies(dependencies), onError: onError)
    self.readState = readState
    self.readsState = readState != nil
    self.crossing = crossing
  }

  /// `readState != nil`, as a Bool: a look at an optional of a generic type goes through its
  /// metadata on every action.
  private let readsState: Bool

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    let outcome = feature.step(crossing(action), context)
    if outcome.failed, let error = outcome.error { return refused(error) }
    if readsState, let readState {
      do throws(LuaFeatureError) { state = try readState(feature) } catch {
        return refused(error)
      }
    }
    // Most actions return nothing: no closure is made (and allocated) for them.
    guard !outcome.effect.isNone else { return .none }
    return decoding(outcome.effect)
  }

  /// Refused: what composes this reducer does not go on as if it had succeeded. Apart from
  /// `reduce`, which stays as small as the actions that succeed need.
  @inline(never)
  private func refused(_ error: LuaFeatureError) -> Effect<Action> {
    onError(error)
    return .failure(error, sending: failureAction?(error))
  }

  /// This reducer, sending `action(error)` (when not nil) after an action the feature refused:
  /// how a parent learns of it and reacts. The refusal itself still stops what composes this
  /// reducer (`Effect.failure`, see `CombineReducers`).
  public func sendingOnFailure(_ action: @escaping @Sendable (LuaFeatureError) -> Action?) -> Self {
    var copy = self
    copy.failureAction = action
    return copy
  }

  /// The actions `effect` sends, decoded into `Action`. Apart from `reduce`, whose every call
  /// would otherwise retain and release the feature for the closure most calls never make.
  @inline(never)
  private func decoding(_ effect: Effect<LuaValue>) -> Effect<Action> {
    let feature = self.feature
    let onError = self.onError
    return effect.compactMap { luaAction in
      do throws(LuaFeatureError) {
        return try feature.decode(Action.self, from: luaAction)
      } catch {
        onError(error)
        return nil
      }
    }
  }

  /// Encoded straight onto the stack: marshalled once.
  static func encoded(_ action: Action) -> LuaFeatureAction {
    .encoded(.encoded(action, as: "action"), describe: { "\(action)" })
  }
}

extension LuaFeatureCodableReducer where State: Decodable {
  /// The state decoded after every action.
  ///
  /// ```swift
  /// struct Counter: Codable, Sendable { var count: Int }
  /// enum CounterAction: Codable, Sendable { case increment, decrement }
  /// let reducer = LuaFeatureCodableReducer<Counter, CounterAction>(
  ///   feature: feature, dependencies: .live)
  /// ```
  public init(
    feature: LuaFeature, dependencies: DependencyValues,
    onError: @escaping @Sendable (LuaFeatureError) -> Void = LuaFeatureReducer<LuaValue>.reportError
  ) {
    self.init(
      feature: feature, dependencies: dependencies, onError: onError, readState: Self.decoded,
      crossing: Self.encoded)
  }

  static func decoded(_ feature: LuaFeature) throws(LuaFeatureError) -> State {
    try feature.decodeState(State.self)
  }
}

extension LuaFeatureCodableReducer where Action: LuaActionConvertible {
  /// Pushed field by field.
  static func typed(_ action: Action) -> LuaFeatureAction { .typed(action) }
}

extension LuaFeatureCodableReducer where State: Decodable, Action: LuaActionConvertible {
  /// The state decoded after every action; actions pushed field by field.
  ///
  /// ```swift
  /// // Todos: a Codable state; TodosAction: Codable and LuaActionConvertible
  /// let reducer = LuaFeatureCodableReducer<Todos, TodosAction>(
  ///   feature: feature, dependencies: .live)
  /// ```
  public init(
    feature: LuaFeature, dependencies: DependencyValues,
    onError: @escaping @Sendable (LuaFeatureError) -> Void = LuaFeatureReducer<LuaValue>.reportError
  ) {
    self.init(
      feature: feature, dependencies: dependencies, onError: onError, readState: Self.decoded,
      crossing: Self.typed)
  }
}

extension LuaFeatureCodableReducer where State == LuaFeatureHandle {
  /// The state stays in Lua: the store holds a handle, and an action costs no read of it.
  ///
  /// ```swift
  /// let store = Store(
  ///   initialState: LuaFeatureHandle(feature: feature),
  ///   reducer: LuaFeatureCodableReducer<LuaFeatureHandle, CounterAction>(
  ///     feature: feature, dependencies: .live))
  /// ```
  public init(
    feature: LuaFeature, dependencies: DependencyValues,
    onError: @escaping @Sendable (LuaFeatureError) -> Void = LuaFeatureReducer<LuaValue>.reportError
  ) {
    self.init(
      feature: feature, dependencies: dependencies, onError: onError, readState: nil,
      crossing: Self.encoded)
  }
}

extension LuaFeatureCodableReducer
where State == LuaFeatureHandle, Action: LuaActionConvertible {
  /// The state stays in Lua; actions pushed field by field.
  ///
  /// ```swift
  /// // TodosAction: Codable and LuaActionConvertible
  /// let store = Store(
  ///   initialState: LuaFeatureHandle(feature: feature),
  ///   reducer: LuaFeatureCodableReducer<LuaFeatureHandle, TodosAction>(
  ///     feature: feature, dependencies: .live))
  /// ```
  public init(
    feature: LuaFeature, dependencies: DependencyValues,
    onError: @escaping @Sendable (LuaFeatureError) -> Void = LuaFeatureReducer<LuaValue>.reportError
  ) {
    self.init(
      feature: feature, dependencies: dependencies, onError: onError, readState: nil,
      crossing: Self.typed)
  }
}

extension TestStore where State: Decodable, Action: Codable {
  /// A TestStore over the Lua feature at `path`, with Swift types for its state and actions.
  ///
  /// ```swift
  /// struct Counter: Codable, Equatable, Sendable { var count: Int }
  /// enum CounterAction: Codable, Sendable { case increment, decrement }
  /// let store = try TestStore<Counter, CounterAction>(feature: "counter.lua")
  /// await store.send(.increment) { $0.count = 1 }
  /// ```
  public convenience init(
    feature path: String, initialState: State? = nil, env: LuaValue = [:],
    dependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) throws(LuaFeatureError) where State: Encodable {
    let feature = try LuaFeature(contentsOf: URL(fileURLWithPath: path), env: env)
    if let initialState {
      try feature.replaceState(with: initialState)
    }
    let start = try feature.decodeState(State.self)
    self.init(
      initialState: start,
      reducer: { LuaFeatureCodableReducer<State, Action>(feature: feature, dependencies: $0) },
      dependencies: dependencies, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}
