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
  let readState: @Sendable (LuaFeature) throws(LuaFeatureError) -> State
  let dependencies: DependencyValues
  let onError: @Sendable (LuaFeatureError) -> Void

  public init(
    feature: LuaFeature, dependencies: DependencyValues,
    readState: @escaping @Sendable (LuaFeature) throws(LuaFeatureError) -> State,
    onError: @escaping @Sendable (LuaFeatureError) -> Void = LuaFeatureReducer.reportError
  ) {
    self.feature = feature
    self.readState = readState
    self.dependencies = dependencies
    self.onError = onError
    feature.use(dependencies)
  }

  public func reduce(into state: inout State, action: LuaValue) -> Effect<LuaValue> {
    do throws(LuaFeatureError) {
      let effect = try feature.reduceToEffect(action, dependencies: dependencies, onError: onError)
      state = try readState(feature)
      return effect
    } catch {
      onError(error)
    }
    return .none
  }

  /// Reports the error as an issue: a test fails, an app logs it. The state was rolled back.
  public static func reportError(_ error: LuaFeatureError) {
    reportIssue(error.description)
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
  /// A reducer whose store holds a snapshot of the state after every action (for tests).
  public init(feature: LuaFeature, dependencies: DependencyValues) {
    self.init(feature: feature, dependencies: dependencies, readState: { (feature) throws(LuaFeatureError) in try feature.state() })
  }
}

extension LuaFeatureReducer where State == LuaFeatureHandle {
  /// A reducer whose store holds a handle: the state stays in Lua.
  public init(feature: LuaFeature, dependencies: DependencyValues) {
    self.init(feature: feature, dependencies: dependencies, readState: { LuaFeatureHandle(feature: $0) })
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
      initialState: start, reducer: { LuaFeatureReducer<LuaValue>(feature: feature, dependencies: $0) },
      dependencies: dependencies, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}
