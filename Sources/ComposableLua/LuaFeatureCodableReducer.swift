import Composable
import Foundation
import IssueReporting
import LuaKit

/// A Lua feature with Swift types on its edges: a `Codable` state struct, and an action enum
/// that crosses into Lua in the action shape (`case add(amount: Int)` is
/// `{ type = "add", amount = 3 }`). Actions that Lua effects send back are decoded into the
/// enum; one that does not decode is reported and dropped.
public struct LuaFeatureCodableReducer<State: Decodable & Sendable, Action: Codable & Sendable>:
  Reducer
{
  public let feature: LuaFeature
  let dependencies: LuaFeatureDependencies
  let onError: @Sendable (LuaFeatureError) -> Void

  public init(
    feature: LuaFeature, dependencies: DependencyValues,
    onError: @escaping @Sendable (LuaFeatureError) -> Void = LuaFeatureReducer<LuaValue>.reportError
  ) {
    self.feature = feature
    self.dependencies = LuaFeatureDependencies(dependencies)
    self.onError = onError
  }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    do throws(LuaFeatureError) {
      // Encoded straight onto the stack: marshalled once.
      let effect = try feature.reduceToEffect(
        .encoded(.encoded(action, as: "action"), describe: { "\(action)" }),
        dependencies: dependencies, onError: onError)
      state = try feature.decodeState(State.self)
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
    } catch {
      onError(error)
      return .none
    }
  }
}

extension TestStore where State: Decodable, Action: Codable {
  /// A TestStore over the Lua feature at `path`, with Swift types for its state and actions.
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
