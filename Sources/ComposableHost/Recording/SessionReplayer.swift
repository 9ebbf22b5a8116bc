import Composable
import ComposableLua
import Foundation
import LuaKit

/// Reduces recorded actions again on a feature, each with the `env` answers it had, running no
/// effect (what effects did is recorded: the actions they sent). Time travel jumps with it; a
/// replay after a reload and `composable replay` run a whole session through it.
struct SessionReplayer {
  let feature: LuaFeature
  let tape: LuaEnvironmentTape
  let dependencies: LuaFeatureDependencies

  /// `dependencies` with `tape` as their environment tape.
  init(feature: LuaFeature, dependencies: DependencyValues, tape: LuaEnvironmentTape) {
    self.feature = feature
    self.tape = tape
    var values = dependencies
    values.environmentTape = tape
    self.dependencies = LuaFeatureDependencies(values)
  }

  /// A replayer over a fresh load of the feature at `url`, from `recording`'s initial state and
  /// env: what `composable replay` and a test written from a session run. What the recording
  /// does not answer (code that now draws more) is answered the same way at every replay:
  /// UUIDs counting from zero, `random` seeded with 0.
  static func fresh(
    _ recording: SessionRecording, feature url: URL,
    print: @escaping (String) -> Void = { Swift.print($0) }
  ) throws -> SessionReplayer {
    let feature = try LuaFeature(
      contentsOf: url, state: recording.initialState,
      env: recording.env == .nil ? [:] : recording.env, print: print)
    var dependencies = DependencyValues.live
    dependencies.uuid = .incrementing
    dependencies.random = RandomSource(seed: 0)
    return SessionReplayer(feature: feature, dependencies: dependencies, tape: LuaEnvironmentTape())
  }

  /// How an action went this time.
  struct Outcome {
    /// The action as it went now: its draws, effect and error are this run's.
    var action: RecordedAction
    var error: LuaFeatureError?
    /// The hashes of the changes it made and of its effect's code (`SessionTimeline`'s), when
    /// asked for.
    var hashes: ActionHashes
  }

  /// Reduces `action` with its recorded draws; `readingChanges`, the outcome has the hashes of
  /// the changes it made and of the code of its effect.
  func replay(_ recorded: RecordedAction, readingChanges: Bool = false) -> Outcome {
    // The session jumped here, cancelling every effect: no child's effects run any more.
    if recorded.afterJump { try? feature.forgetRunningEffects() }
    _ = tape.takeRecorded()
    tape.play(recorded.draws)
    var now = recorded
    // Reduced as a store reduces it, its effect checked as a store checks it, but none of it
    // run: what effects did comes back recorded, as the actions they sent.
    let outcome = feature.step(
      recorded.action,
      LuaStepContext(dependencies: dependencies, effects: .check, readsChanges: readingChanges))
    now.effect = outcome.returned.effectDescription
    now.error = outcome.error?.recordedMessage
    tape.stopPlaying()
    now.draws = tape.takeRecorded()
    var hashes = ActionHashes()
    if readingChanges {
      hashes.changes = (try? outcome.changes.get()).map(\.hashValue)
      hashes.effectCode = feature.codeHash(ofFunctionsIn: outcome.returned)
    }
    return Outcome(action: now, error: outcome.error, hashes: hashes)
  }

  /// Puts the feature's state where it was after action `number` of `timeline`: its nearest
  /// checkpoint, then the actions after it.
  func restore(_ timeline: SessionTimeline, to number: Int) throws(LuaFeatureError) {
    let (position, state) = timeline.checkpoint(atOrBefore: number)
    try feature.setState(state)
    let actions = timeline.actions
    for index in position..<number { _ = replay(actions[index]) }
  }
}
