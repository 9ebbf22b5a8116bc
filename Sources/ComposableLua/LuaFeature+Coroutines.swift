import Composable
import Foundation
import IssueReporting
import LuaKit

/// The coroutines of `effect.run`, and the wrapping of the actions effects send back.
extension LuaFeature {
  /// A coroutine that will run `function` (the body of an `effect.run`).
  public func makeCoroutine(_ function: LuaReference) throws(LuaFeatureError) -> LuaReference {
    try queue.access { (vm, loaded) throws(LuaFeatureError) -> LuaReference in
      do throws(LuaError) { return try vm.makeCoroutine(function) } catch { throw .conversion(error) }
    }
  }

  /// Resumes an effect's coroutine with the result of what it last asked for; `env` answers
  /// from `dependencies` meanwhile (those of the store that runs the effect).
  public func resume(
    _ coroutine: LuaReference, with arguments: [LuaValue] = [],
    dependencies: LuaFeatureDependencies? = nil
  ) throws(LuaError) -> LuaResumption {
    try queue.access { (vm, loaded) throws(LuaError) -> LuaResumption in
      hostEnvironment.answer(from: dependencies)
      return try vm.resume(coroutine, with: arguments)
    }
  }

  /// `action` passed through the wrappers that composition put on an effect, innermost first.
  public func wrap(_ action: LuaValue, with wrappers: [LuaReference]) throws(LuaError) -> LuaValue {
    guard !wrappers.isEmpty else { return action }
    return try queue.access { (vm, loaded) throws(LuaError) -> LuaValue in
      var action = action
      for wrapper in wrappers.reversed() { action = try vm.call(wrapper, with: action) }
      return action
    }
  }
}
