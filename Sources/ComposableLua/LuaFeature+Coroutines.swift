import Composable
import Foundation
import IssueReporting
import LuaKit

/// The coroutines of `effect.run`, and the wrapping of the actions effects send back.
extension LuaFeature {
  /// A coroutine that will run `function` (the body of an `effect.run`).
  public func makeCoroutine(_ function: LuaReference) throws(LuaFeatureError) -> LuaReference {
    try queue.access { (vm, loaded) throws(LuaFeatureError) -> LuaReference in
      do throws(LuaError) { return try vm.makeCoroutine(function) } catch {
        throw .conversion(error)
      }
    }
  }

  /// Resumes an effect's coroutine with the result of what it last asked for; `env` answers
  /// from `dependencies` meanwhile (those of the store that runs the effect), as to an effect
  /// that the action their tape numbered `origin` started.
  public func resume(
    _ coroutine: LuaReference, with arguments: [LuaValue] = [],
    dependencies: LuaFeatureDependencies? = nil, origin: Int? = nil
  ) throws(LuaError) -> LuaResumption {
    try queue.access { (vm, loaded) throws(LuaError) -> LuaResumption in
      hostEnvironment.answer(from: dependencies, for: .effect(origin: origin))
      defer { hostEnvironment.endCall() }
      return try vm.resume(coroutine, with: arguments)
    }
  }

  /// Closes an effect's coroutine that ended without returning (cancelled, failed, or stopped
  /// by the host for what it yielded): its pending to-be-closed variables (`local f <close>`)
  /// are closed, as `coroutine.close` closes them. `env` answers from `dependencies`, as to an
  /// effect the action numbered `origin` started (see `resume`).
  public func close(
    _ coroutine: LuaReference, dependencies: LuaFeatureDependencies? = nil, origin: Int? = nil
  ) throws(LuaError) {
    try queue.access { (vm, loaded) throws(LuaError) in
      hostEnvironment.answer(from: dependencies, for: .effect(origin: origin))
      defer { hostEnvironment.endCall() }
      try vm.close(coroutine)
    }
  }

  /// `action` passed through the wrappers that composition put on an effect, innermost first:
  /// for the actions that arrive later (from `run`, `http`, `file`).
  public func wrap(_ action: LuaValue, with wrappers: [LuaReference]) throws(LuaError) -> LuaValue {
    guard !wrappers.isEmpty else { return action }
    return try queue.access { (vm, _) throws(LuaError) -> LuaValue in
      try Self.wrap(action, with: wrappers, in: vm)
    }
  }

  /// The one way a child's action becomes its parent's, for every kind of effect: each wrapper
  /// that composition (`scope`, `for_each`, `if_let`) put on the effect, innermost first. The
  /// actions of `send`, `after` and `every` are wrapped when the effect is read; those of `run`,
  /// `http` and `file` as they arrive.
  static func wrap(
    _ action: LuaValue, with wrappers: [LuaReference], in vm: LuaVM
  ) throws(LuaError) -> LuaValue {
    var action = action
    for wrapper in wrappers.reversed() { action = try vm.call(wrapper, with: action) }
    return action
  }
}
