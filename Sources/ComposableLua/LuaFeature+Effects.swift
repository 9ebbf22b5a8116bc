import Composable
import LuaKit

extension LuaFeature {
  /// Reduces `action` and turns what the reducer returned into an `Effect` on `dependencies`,
  /// with, for a feature that persists, the save of the state the action changed. Both the
  /// `LuaValue` and the `Codable` reducers run features through here.
  func reduceToEffect(
    _ action: LuaFeatureAction, dependencies scope: LuaFeatureDependencies,
    onError: @escaping @Sendable (LuaFeatureError) -> Void
  ) throws(LuaFeatureError) -> Effect<LuaValue> {
    var wrote = false
    let effect = try reduce(action, dependencies: scope, wrote: &wrote) {
      (returned, vm) throws(LuaFeatureError) -> Effect<LuaValue> in
      // Most actions return nothing: no interpreter (and no copy of the dependencies) then.
      guard case .nil = returned else {
        return try interpret(returned, in: vm, for: action, scope, onError)
      }
      return .none
    }
    return wrote ? withSave(effect, scope, onError) : effect
  }

  /// `reduceToEffect` for a `LuaValue` action, which goes down as it is (see
  /// `reduce(describing:dependencies:wrote:interpret:call:)`).
  func reduceToEffect(
    value action: LuaValue, dependencies scope: LuaFeatureDependencies,
    onError: @escaping @Sendable (LuaFeatureError) -> Void
  ) throws(LuaFeatureError) -> Effect<LuaValue> {
    var wrote = false
    let effect = try reduce(
      describing: .value(action), dependencies: scope, wrote: &wrote,
      interpret: { (returned, vm) throws(LuaFeatureError) -> Effect<LuaValue> in
        guard case .nil = returned else {
          return try interpret(returned, in: vm, for: .value(action), scope, onError)
        }
        return .none
      },
      call: { (vm, step) throws(LuaError) -> LuaValue in
        try vm.callTransaction(step, argument: action)
      })
    return wrote ? withSave(effect, scope, onError) : effect
  }

  /// `reduceToEffect` for a host that shows what each action did: `description` is set to what
  /// the reducer returned (nil for no effect), and `changes` to where the action changed the
  /// state, read from its transaction before it commits (no copy of the state is needed to
  /// compare). A failure to read the changes fails neither the action nor its effect.
  func reduceToEffect(
    _ action: LuaFeatureAction, dependencies scope: LuaFeatureDependencies,
    onError: @escaping @Sendable (LuaFeatureError) -> Void, returned description: inout LuaValue,
    changes: inout Result<[LuaDifference], LuaFeatureError>
  ) throws(LuaFeatureError) -> Effect<LuaValue> {
    var wrote = false
    let state = stateReference
    let effect = try reduce(action, dependencies: scope, wrote: &wrote) {
      (returned, vm) throws(LuaFeatureError) -> Effect<LuaValue> in
      description = returned
      let effect: Effect<LuaValue> =
        if case .nil = returned { .none } else {
          try interpret(returned, in: vm, for: action, scope, onError)
        }
      do throws(LuaError) { changes = .success(try vm.transactionDifferences(root: state)) } catch {
        changes = .failure(.conversion(error))
      }
      return effect
    }
    return wrote ? withSave(effect, scope, onError) : effect
  }

  private func interpret(
    _ returned: LuaValue, in vm: LuaVM, for action: LuaFeatureAction,
    _ scope: LuaFeatureDependencies, _ onError: @escaping @Sendable (LuaFeatureError) -> Void
  ) throws(LuaFeatureError) -> Effect<LuaValue> {
    try LuaEffectInterpreter(
      feature: self, vm: vm, dependencies: scope, describeAction: action.describe,
      onError: onError
    ).effect(from: returned)
  }

  /// `effect`, and for a feature that persists, the save of what the action wrote.
  private func withSave(
    _ effect: Effect<LuaValue>, _ scope: LuaFeatureDependencies,
    _ onError: @escaping @Sendable (LuaFeatureError) -> Void
  ) -> Effect<LuaValue> {
    let (saver, persistence) = queue.access { ($1.saver, $1.module.persistence) }
    guard let saver, let persistence else { return effect }
    return .merge(
      effect, save(saver, persistence, dependencies: scope.values, onError: onError))
  }

  /// After an action that wrote to the state of a feature that persists: its save, on the
  /// schedule `StateSaver` keeps (a `debounce` after the first change not yet saved), writing
  /// what the saver was made with (`persistedFile()`).
  private func save(
    _ saver: StateSaver, _ persistence: Persistence, dependencies: DependencyValues,
    onError: @escaping @Sendable (LuaFeatureError) -> Void
  ) -> Effect<LuaValue> {
    saver.save(
      delay: Seconds.duration(persistence.debounce) ?? .seconds(1),
      clock: dependencies.clock, files: dependencies.files
    ) { error in
      if let error = error as? LuaFeatureError { return onError(error) }
      onError(
        .effect(
          action: "saving the state",
          error: .runtime(message: "\(persistence.path): \(error)", traceback: "")))
    }
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
