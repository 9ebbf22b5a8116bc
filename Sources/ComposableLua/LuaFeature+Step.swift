import Composable
import LuaKit

/// Each action as a transaction on the feature's VM: the one place that opens it, calls the
/// reducer, interprets what it returned and commits. Stores, TestStores, the REPL, replays and
/// printers all come through here, each with its `LuaStepContext`; what they learn comes back
/// as one `LuaStepOutcome`.
extension LuaFeature {
  /// Runs the reducer on `action` as a transaction. If the reducer or the interpretation of
  /// what it returned fails, every write of the action is undone and the outcome says why.
  public func step(_ action: LuaValue, _ context: LuaStepContext) -> LuaStepOutcome {
    step(describing: .value(action), context) { (vm, step) throws(LuaError) -> LuaValue in
      try vm.callTransaction(step, argument: action)
    }
  }

  /// `step` with the reducer's own dependencies, what it returned kept as it is: for code that
  /// calls the reducer directly (a test of the transaction, a benchmark). Throws the action's
  /// error, its writes undone.
  @discardableResult
  public func step(_ action: LuaValue) throws(LuaFeatureError) -> LuaStepOutcome {
    let outcome = step(action, .direct)
    if let error = outcome.error { throw error }
    return outcome
  }

  /// `step` for an action that crosses as a Swift value (typed, or encoded onto the stack).
  func step(_ action: LuaFeatureAction, _ context: LuaStepContext) -> LuaStepOutcome {
    step(describing: action, context) { (vm, step) throws(LuaError) -> LuaValue in
      switch action {
      case let .value(value): try vm.callTransaction(step, argument: value)
      case let .typed(typed):
        try vm.callTransaction(step, table: LuaActionTable(action: typed), setsTag: true)
      case let .encoded(argument, _): try vm.callTransaction(step, argument: argument)
      }
    }
  }

  /// The step, with the reducer called by `call` on the action, which `action` names in
  /// messages, made only when one is needed. A `LuaValue` action comes this way as it is:
  /// wrapped in a `LuaFeatureAction` on every call, it was copied in and out (an enum with an
  /// existential case is handled by address), two retains and two releases per action.
  private func step(
    describing action: @autoclosure () -> LuaFeatureAction, _ context: LuaStepContext,
    call: (LuaVM, LuaTransactionCall) throws(LuaError) -> LuaValue
  ) -> LuaStepOutcome {
    do throws(LuaFeatureError) {
      return try queue.access { (vm, loaded) throws(LuaFeatureError) -> LuaStepOutcome in
        hostEnvironment.answer(from: context.dependencies, for: .reducer)
        defer { hostEnvironment.endCall() }
        let origin = context.dependencies?.tape?.beginAction()
        var outcome = LuaStepOutcome()
        do throws(LuaError) {
          outcome.returned = try call(vm, loaded.step)  // rolled back if it fails
        } catch {
          throw Self.inActionTerms(error, action())
        }
        do throws(LuaFeatureError) {
          if !outcome.returned.isNil, context.effects != .keep {
            let dependencies = context.dependencies ?? hostEnvironment.defaultDependencies()
            let effect = try LuaEffectInterpreter(
              feature: self, vm: vm, dependencies: dependencies,
              describeAction: action().describe, origin: origin, onError: context.onError
            ).effect(from: outcome.returned)
            if context.effects == .run { outcome.effect = effect }
          }
          if context.readsChanges {
            do throws(LuaError) {
              outcome.changes = .success(try vm.transactionDifferences(root: stateReference))
            } catch {
              outcome.changes = .failure(.conversion(error))
            }
          }
        } catch {
          vm.rollbackTransaction()
          throw error
        }
        // Read before the commit, which forgets the journal (a field read: nothing to save).
        outcome.wrote = vm.transactionWrote
        if outcome.wrote, let saver = loaded.saver,
          let save = persistenceObservesCommit(of: vm, loaded, saver, context)
        {
          outcome.effect = outcome.effect.isNone ? save : .merge(outcome.effect, save)
        }
        vm.commitTransaction()
        return outcome
      }
    } catch {
      return LuaStepOutcome(failure: error)
    }
  }

  /// How `callTransaction` names what the called function returned, in a path.
  static let returnedPath = "result #1"

  /// An error of the step in the words of actions: an argument that is no action (the tag
  /// check's, or one that could not be pushed) is the action refused before the reducer ran;
  /// what the reducer returned that could not be read (a cycle, nesting too deep) is a
  /// malformed effect, as any other wrong effect is.
  static func inActionTerms(_ error: LuaError, _ action: LuaFeatureAction) -> LuaFeatureError {
    guard case let .conversion(path, message) = error else {
      return .reduce(action: action.description, error: error)
    }
    if path.hasPrefix(Self.returnedPath) {
      let effectPath = "effect" + path.dropFirst(Self.returnedPath.count)
      return .malformedEffect(action: action.description, path: effectPath, message: message)
    }
    guard path.hasPrefix("argument") else {
      return .reduce(action: action.description, error: error)
    }
    if path == "argument" {
      switch action {
      case let .value(value):
        if let problem = LuaAction.problem(value) {
          return .malformedAction(action: action.description, message: problem)
        }
      case .encoded, .typed:  // a Swift value that does not make the action shape
        return .malformedAction(
          action: action.description,
          message: "expected an action (a table with a string type, or a string), "
            + "got \(action.description)")
      }
    }
    let field = "action" + path.dropFirst("argument".count)
    return .malformedAction(action: action.description, message: "\(field): \(message)")
  }
}

extension LuaFeature {
  /// `json.decode` of what a file held (`effect.file.read{ json = true }`: its `data`) or of
  /// an HTTP response's body (`response.json`).
  func decodeJSON(_ bytes: [UInt8]) throws(LuaError) -> LuaValue {
    try queue.access { vm, _ throws(LuaError) in try vm.jsonDecode(bytes) }
  }

  /// `json.encode` of a value, for an HTTP request's table `body`: the one JSON of Lua values.
  func encodeJSON(_ value: LuaValue) throws(LuaError) -> String {
    try queue.access { vm, _ throws(LuaError) in try vm.jsonEncode(value) }
  }
}
