import Composable
import Foundation
import IssueReporting
import LuaKit

/// A Lua feature as a `Reducer` of the runtime: it runs in any `Store` or `TestStore`, next to
/// Swift reducers, and its effects run on the store's clock and dependencies.
///
/// `State` is what the store holds of the feature's state: a `LuaFeatureHandle` in an app (the
/// state stays in Lua and costs nothing per action), a `LuaValue` snapshot or a decoded
/// `Codable` type in tests (read after every action, so that the TestStore can compare).
public struct LuaFeatureReducer<State: Sendable>: Reducer {
  public typealias Action = LuaValue

  public let feature: LuaFeature
  /// Reads the state after an action; nil for a store that holds a `LuaFeatureHandle` to this
  /// feature, which stays as it is (no read, and no retain of the feature, per action).
  let readState: (@Sendable (LuaFeature) throws(LuaFeatureError) -> State)?
  /// This reducer's dependencies, handed to each call: `env` answers from them during it, so
  /// two reducers over one feature each use their own.
  let dependencies: LuaFeatureDependencies
  private(set) var onError: @Sendable (LuaFeatureError) -> Void
  /// For a store that holds a copy of the state: the copy this reducer last gave it, and how
  /// to write a different one back into Lua. A Swift parent may write to its Lua child's state
  /// between actions; the child's next action must start from what the parent wrote.
  let writeBack: StateWriteBack<State>?
  /// The action to send when the feature refuses one (`sendingOnFailure`), after the failure.
  var failureAction: (@Sendable (LuaFeatureError) -> LuaValue?)?

  public init(
    feature: LuaFeature, dependencies: DependencyValues,
    readState: @escaping @Sendable (LuaFeature) throws(LuaFeatureError) -> State,
    onError: @escaping @Sendable (LuaFeatureError) -> Void = LuaFeatureReducer.reportError
  ) {
    self.feature = feature
    self.readState = readState
    self.dependencies = LuaFeatureDependencies(dependencies)
    self.onError = onError
    self.writeBack = nil
  }

  init(
    feature: LuaFeature, dependencies: DependencyValues,
    readState: (@Sendable (LuaFeature) throws(LuaFeatureError) -> State)?,
    writeBack: StateWriteBack<State>?
  ) {
    self.feature = feature
    self.readState = readState
    self.dependencies = LuaFeatureDependencies(dependencies)
    self.onError = LuaFeatureReducer.reportError
    self.writeBack = writeBack
  }

  public func reduce(into state: inout State, action: LuaValue) -> Effect<LuaValue> {
    do throws(LuaFeatureError) {
      try writeBack?.writeIfChanged(state, into: feature)
      let effect = try feature.reduceToEffect(
        value: action, dependencies: dependencies, onError: onError)
      if let readState {
        state = try readState(feature)
        writeBack?.gave(state)
      }
      return effect
    } catch {
      return failed(error)
    }
  }

  /// The effect of an action the feature refused: reported to `onError`, then
  /// `Effect.failure`, so that what composes this reducer does not go on as if it had
  /// succeeded (see `CombineReducers`), with the action `sendingOnFailure` makes of it. Apart
  /// from `reduce`, which stays as small as the actions that succeed need.
  @inline(never)
  private func failed(_ error: LuaFeatureError) -> Effect<LuaValue> {
    onError(error)
    return .failure(error, sending: failureAction?(error))
  }

  /// This reducer, sending `action(error)` (when not nil) after an action the feature refused:
  /// how a parent learns of it and reacts (say, `{ type = "refused", reason = ... }`, which a
  /// Swift parent receives through its `Scope` as any action of the child). The refusal itself
  /// still stops what composes this reducer (`Effect.failure`).
  public func sendingOnFailure(
    _ action: @escaping @Sendable (LuaFeatureError) -> LuaValue?
  ) -> Self {
    var copy = self
    copy.failureAction = action
    return copy
  }

  /// `reduce`, with what the reducer returned, as Lua described it (nil for no effect, or when
  /// the action failed), and where the action changed the state (none when it failed): for a
  /// host that records a session (`LuaValue.effectDescription`) and shows each action's
  /// changes, read from its transaction rather than by comparing two snapshots.
  public func reduce(
    into state: inout State, action: LuaValue, returned: inout LuaValue,
    changes: inout Result<[LuaDifference], LuaFeatureError>
  ) -> Effect<LuaValue> {
    do throws(LuaFeatureError) {
      try writeBack?.writeIfChanged(state, into: feature)
      let effect = try feature.reduceToEffect(
        .value(action), dependencies: dependencies, onError: onError, returned: &returned,
        changes: &changes)
      if let readState {
        state = try readState(feature)
        writeBack?.gave(state)
      }
      return effect
    } catch {
      returned = .nil
      changes = .success([])
      return failed(error)
    }
  }

  /// Reports the error as an issue: a test fails, at the line of its call that the error came
  /// from (`TestCallSite`), and an app logs it. The state was rolled back.
  public static func reportError(_ error: LuaFeatureError) {
    guard let site = TestCallSite.current else { return reportIssue(error.description) }
    reportIssue(
      error.description, fileID: site.fileID, filePath: site.filePath, line: site.line,
      column: site.column)
  }
}

/// What an app's store holds of a Lua feature's state: a handle that reads it on demand.
public struct LuaFeatureHandle: Sendable {
  public let feature: LuaFeature

  public init(feature: LuaFeature) { self.feature = feature }

  public func snapshot() throws(LuaFeatureError) -> LuaValue { try feature.state() }

  public func decode<State: Decodable>(_ type: State.Type) throws(LuaFeatureError) -> State {
    try feature.decodeState(type)
  }
}

extension LuaFeatureReducer where State == LuaValue {
  /// A reducer whose store holds a snapshot of the state after every action (for tests, and
  /// for a Lua child of a Swift parent, whose writes to it reach Lua before the next action).
  public init(feature: LuaFeature, dependencies: DependencyValues) {
    self.init(
      feature: feature, dependencies: dependencies,
      readState: { (feature) throws(LuaFeatureError) in try feature.state() },
      writeBack: StateWriteBack(isSame: ==) { (state, feature) throws(LuaFeatureError) in
        try feature.setState(state)
      })
  }
}

/// The copy of the state a reducer last gave its store, and how to write another back.
final class StateWriteBack<State: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var given: State?  // under `lock`
  private let isSame: @Sendable (State, State) -> Bool
  private let write: @Sendable (State, LuaFeature) throws(LuaFeatureError) -> Void

  init(
    isSame: @escaping @Sendable (State, State) -> Bool,
    write: @escaping @Sendable (State, LuaFeature) throws(LuaFeatureError) -> Void
  ) {
    self.isSame = isSame
    self.write = write
  }

  /// Writes `state` into the feature when it is not what this reducer last gave out.
  func writeIfChanged(_ state: State, into feature: LuaFeature) throws(LuaFeatureError) {
    guard let given = lock.withLock({ given }), !isSame(given, state) else { return }
    try write(state, feature)
  }

  func gave(_ state: State) { lock.withLock { given = state } }
}

extension LuaFeatureReducer where State == LuaFeatureHandle {
  /// A reducer whose store holds a handle: the state stays in Lua.
  public init(
    feature: LuaFeature, dependencies: DependencyValues,
    onError: @escaping @Sendable (LuaFeatureError) -> Void = LuaFeatureReducer.reportError
  ) {
    self.init(feature: feature, dependencies: dependencies, readState: nil, writeBack: nil)
    self.onError = onError
  }
}

extension TestStore where State == LuaValue, Action == LuaValue {
  /// A TestStore over the Lua feature at `path`, its state compared as `LuaValue` snapshots.
  /// `initialState` replaces what the feature's `initial_state()` gives.
  public convenience init(
    feature path: String, initialState: LuaValue? = nil, env: LuaValue = [:],
    dependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) throws(LuaFeatureError) {
    let feature = try LuaFeature(
      contentsOf: URL(fileURLWithPath: path), state: initialState, env: env)
    let start = try feature.state()
    self.init(
      initialState: start,
      reducer: { LuaFeatureReducer<LuaValue>(feature: feature, dependencies: $0) },
      dependencies: dependencies, fileID: fileID, filePath: filePath, line: line, column: column)
    // `receive("loaded")` expects `{ type = "loaded" }`, as `send("loaded")` sends it.
    expandExpectedAction = { (try? LuaAction.normalize($0)) ?? $0 }
  }
}
