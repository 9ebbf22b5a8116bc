import Composable
import LuaKit

extension LuaFeature {
  /// Reduces `action` and turns what the reducer returned into an `Effect` on `dependencies`,
  /// with, for a feature that persists, the save of the state the action changed. Both the
  /// `LuaValue` and the `Codable` reducers run features through here.
  func reduceToEffect(
    _ action: LuaValue, dependencies: DependencyValues,
    onError: @escaping @Sendable (LuaFeatureError) -> Void
  ) throws(LuaFeatureError) -> Effect<LuaValue> {
    var wrote = false
    let effect = try reduce(action, wrote: &wrote) {
      (returned) throws(LuaFeatureError) -> Effect<LuaValue> in
      // Most actions return nothing: no interpreter (and no copy of the dependencies) then.
      guard case .nil = returned else {
        return try LuaEffectInterpreter(
          feature: self, dependencies: dependencies, action: action, onError: onError
        ).effect(from: returned)
      }
      return .none
    }
    guard wrote, let persistence else { return effect }
    return .merge(effect, save(persistence, dependencies: dependencies, onError: onError))
  }

  /// After an action that wrote to the state of a feature that persists: a save `debounce`
  /// seconds after the first change not yet saved, of the state as it is then, so a burst of
  /// changes is one write. Not a debounce that restarts at each change: under a steady stream
  /// of changes (a timer, say) that would never save. A save under way is never cancelled by
  /// a newer change; the change schedules the next save.
  private func save(
    _ persistence: Persistence, dependencies: DependencyValues,
    onError: @escaping @Sendable (LuaFeatureError) -> Void
  ) -> Effect<LuaValue> {
    guard savedState.scheduleSave() else { return .none }  // the one scheduled will write it
    let files = dependencies.files
    let clock = dependencies.clock
    let delay = Seconds.duration(persistence.debounce) ?? .seconds(1)
    return Effect<LuaValue>.run { [self] _ in
      do {
        do { try await clock.sleep(for: delay) } catch {
          savedState.unscheduleSave()  // the change is still pending: the next one saves it
          throw error
        }
        savedState.unscheduleSave()
        let count = savedState.current
        try await files.write(persistence.path, try persistedFile())
        savedState.saved(upTo: count)
      } catch let error as LuaFeatureError {
        onError(error)
      } catch is CancellationError {
      } catch {
        onError(.effect(
          action: "saving the state",
          error: .runtime(message: "\(persistence.path): \(error)", traceback: "")))
      }
    }
  }
}
