import Composable
import LuaKit

/// What a caller of a feature's step (`LuaFeature.step`) wants from one action, and whose call
/// it is. A reducer makes its context once; each action then costs no more than passing it.
public struct LuaStepContext: Sendable {
  /// Whose dependencies `env` answers from during the call and the action's effects run with;
  /// nil for the feature's own (`LuaFeature.use`).
  public let dependencies: LuaFeatureDependencies?
  /// Where a failure of the action's effects is reported, later, as they run.
  public let onError: @Sendable (LuaFeatureError) -> Void
  /// What the step does with what the reducer returned.
  public let effects: Effects
  /// Whether the outcome says where the action changed the state (`LuaStepOutcome.changes`),
  /// read from its transaction before it commits.
  public let readsChanges: Bool

  /// What the step does with what the reducer returned.
  public enum Effects: Sendable {
    /// Checked and turned into an `Effect` to run, with the save of a feature that persists.
    case run
    /// Checked as `run` checks it (a malformed effect fails the action), but nothing is made to
    /// run: a replay, where what effects did comes back recorded.
    case check
    /// Not looked at: `LuaStepOutcome.returned` is what the reducer returned, as it is.
    case keep
  }

  /// A context: `env` answers from `dependencies` (the feature's own when nil), later failures of
  /// effects go to `onError`, `effects` says what becomes of what the reducer returned, and
  /// `readsChanges` asks for the changes.
  ///
  /// ```swift
  /// let context = LuaStepContext(dependencies: nil, effects: .check, readsChanges: true)
  /// let outcome = feature.step("increment", context)
  /// ```
  public init(
    dependencies: LuaFeatureDependencies?,
    onError: @escaping @Sendable (LuaFeatureError) -> Void = { _ in }, effects: Effects = .run,
    readsChanges: Bool = false
  ) {
    self.dependencies = dependencies
    self.onError = onError
    self.effects = effects
    self.readsChanges = readsChanges
  }

  /// The feature's own dependencies, what the reducer returned kept as it is: for a host or a
  /// test that calls the reducer directly.
  public static let direct = LuaStepContext(dependencies: nil, effects: .keep)
}

/// What one action did, as the step reports it: one value, whatever the caller asked for.
///
/// Small on purpose, as every action returns one: what only a failed action or a caller that
/// reads changes has sits in a box made for them alone, so the outcome of a plain action is
/// three fields to copy and nothing to free.
public struct LuaStepOutcome: Sendable {
  /// What to run: the interpreted effect (merged with a save for a feature that persists), or
  /// `Effect.failure` when the action failed. `.none` when the context runs no effect.
  public var effect: Effect<LuaValue> = .none
  /// What the reducer returned (nil for no effect, and when the action failed).
  public var returned: LuaValue = .nil
  /// Whether the action wrote to the state (a write of the value already there counts).
  public var wrote = false
  /// What only a failed action or a caller that reads changes has; nil for the rest.
  private var details: LuaStepDetails?

  /// Whether the action failed (`error` is set), asked for the cost of a load.
  public var failed: Bool { details?.failed ?? false }

  /// Where the action changed the state, when the context asked (none when it failed). A failure
  /// to read the changes fails neither the action nor its effect.
  public var changes: Result<[LuaDifference], LuaFeatureError> {
    get { details?.changes ?? .success([]) }
    set { details = LuaStepDetails(changes: newValue, error: error) }
  }

  /// Why the action failed: its writes were undone. Nil when it succeeded.
  public var error: LuaFeatureError? {
    get { details?.error }
    set { details = LuaStepDetails(changes: changes, error: newValue) }
  }

  init() {}

  init(failure error: LuaFeatureError) {
    details = LuaStepDetails(changes: .success([]), error: error)
    effect = .failure(error, sending: nil)
  }
}

/// The part of a `LuaStepOutcome` only a failed action or a caller that reads changes has, in a
/// box of its own so that a plain action's outcome stays small.
final class LuaStepDetails: Sendable {
  let changes: Result<[LuaDifference], LuaFeatureError>
  let error: LuaFeatureError?
  let failed: Bool  // `error != nil`, read without copying the error

  init(changes: Result<[LuaDifference], LuaFeatureError>, error: LuaFeatureError?) {
    self.changes = changes
    self.error = error
    self.failed = error != nil
  }
}
