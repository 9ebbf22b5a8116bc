import Composable
import Foundation
import IssueReporting
import LuaKit

/// Each action as a transaction on the feature's VM.
extension LuaFeature {
  /// Runs the reducer on `action` as a transaction. `interpret` turns what the reducer
  /// returned into something the host runs; if the reducer or `interpret` fails, every write of
  /// the action is undone and the error is thrown.
  public func reduce<Interpreted>(
    _ action: LuaValue, interpret: (LuaValue) throws(LuaFeatureError) -> Interpreted
  ) throws(LuaFeatureError) -> Interpreted {
    var wrote = false
    return try reduce(.value(action), wrote: &wrote) { (returned, _) throws(LuaFeatureError) in
      try interpret(returned)
    }
  }

  /// `reduce`, setting `wrote` to whether the action wrote to the state (known only for
  /// features that persist, false for the others: nobody asks).
  ///
  /// `wrote` is an argument rather than part of a returned tuple: on this path, once per action,
  /// a generic tuple cost a runtime metadata lookup per call.
  func reduce<Interpreted>(
    _ action: LuaFeatureAction, dependencies: LuaFeatureDependencies? = nil, wrote: inout Bool,
    interpret: (LuaValue, LuaVM) throws(LuaFeatureError) -> Interpreted
  ) throws(LuaFeatureError) -> Interpreted {
    try reduce(describing: action, dependencies: dependencies, wrote: &wrote, interpret: interpret)
    {
      (vm, step) throws(LuaError) -> LuaValue in
      switch action {
      case let .value(value): try vm.callTransaction(step, argument: value)
      case let .typed(typed):
        try vm.callTransaction(step, table: LuaActionTable(action: typed), setsTag: true)
      case let .encoded(argument, _): try vm.callTransaction(step, argument: argument)
      }
    }
  }

  /// `reduce`, with the step called by `call` on the action, which `action` names in messages,
  /// made only when one is needed. A `LuaValue` action comes this way as it is: wrapped in a
  /// `LuaFeatureAction` on every call, it was copied in and out (an enum with an existential
  /// case is handled by address), two retains and two releases per action.
  func reduce<Interpreted>(
    describing action: @autoclosure () -> LuaFeatureAction,
    dependencies: LuaFeatureDependencies? = nil, wrote: inout Bool,
    interpret: (LuaValue, LuaVM) throws(LuaFeatureError) -> Interpreted,
    call: (LuaVM, LuaTransactionCall) throws(LuaError) -> LuaValue
  ) throws(LuaFeatureError) -> Interpreted {
    try queue.access { (vm, loaded) throws(LuaFeatureError) -> Interpreted in
      hostEnvironment.answer(from: dependencies, forReducer: true)
      let returned: LuaValue
      do throws(LuaError) {
        returned = try call(vm, loaded.step)  // rolled back if it fails
      } catch {
        let action = action()
        throw .reduce(action: action.description, error: Self.inActionTerms(error, action))
      }
      let interpreted: Interpreted
      do throws(LuaFeatureError) {
        interpreted = try interpret(returned, vm)
      } catch {
        vm.rollbackTransaction()
        throw error
      }
      // Read before the commit, which forgets the journal (a field read: nothing to save).
      let didWrite = vm.transactionWrote
      loaded.lastActionWrote = didWrite
      if let saver = loaded.saver, didWrite, persistedValueMayHaveChanged(in: vm, loaded) {
        wrote = true
        saver.changed()
      }
      vm.commitTransaction()
      return interpreted
    }
  }

  /// Whether the open transaction changed what is saved: the whole state, or the field
  /// `persist{ select }` names (a change elsewhere, a screen opened, or a write of the value
  /// already there, starts no save). Asked only of a feature that persists: the write path of
  /// every feature stays as cheap as it was.
  func persistedValueMayHaveChanged(in vm: LuaVM, _ loaded: Loaded) -> Bool {
    let field = loaded.module.persistence?.select.map { LuaValue($0) } ?? .nil
    return vm.transactionChanged(field: field, of: stateReference)
  }

  /// How `callTransaction` names what the called function returned, in a path.
  static let returnedPath = "result #1"

  /// An error of the step in the words of actions: the tag check's (the action is malformed)
  /// says what an action is, and the argument is called the action.
  static func inActionTerms(_ error: LuaError, _ action: LuaFeatureAction) -> LuaError {
    // What the reducer returned, which could not be read (a cycle, nesting too deep): its effect.
    if case let .conversion(path, message) = error, path.hasPrefix(Self.returnedPath) {
      return .conversion(path: "effect" + path.dropFirst(Self.returnedPath.count), message: message)
    }
    guard case let .conversion(path, message) = error, path.hasPrefix("argument") else {
      return error
    }
    if path == "argument" {
      switch action {
      case let .value(value):
        if let problem = LuaAction.problem(value) {
          return .runtime(message: "action: " + problem, traceback: "")
        }
      case .encoded, .typed:  // a Swift value that does not make the action shape
        return .runtime(
          message: "action: expected an action (a table with a string type, or a string), "
            + "got \(action.description)", traceback: "")
      }
    }
    return .conversion(path: "action" + path.dropFirst("argument".count), message: message)
  }
}
