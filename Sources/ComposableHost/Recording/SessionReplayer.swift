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
  /// does not answer (code that now draws more) is answered as `answerBeyond` says.
  static func fresh(
    _ recording: SessionRecording, feature url: URL,
    print: @escaping (String) -> Void = { Swift.print($0) }
  ) throws -> SessionReplayer {
    let feature = try LuaFeature(
      contentsOf: url, state: recording.initialState,
      env: recording.env == .nil ? [:] : recording.env, print: print)
    let replayer = SessionReplayer(
      feature: feature, dependencies: replaying(.live), tape: LuaEnvironmentTape())
    replayer.answerBeyond(recording.actions, initialState: recording.initialState)
    return replayer
  }

  /// `dependencies` with generators of a replay's own for what the recording does not answer
  /// (`answerBeyond`): a replay in the REPL draws none from the session's.
  static func replaying(_ dependencies: DependencyValues) -> DependencyValues {
    var replaying = dependencies
    replaying.uuid = .incrementing
    replaying.random = RandomSource(seed: 0)
    return replaying
  }

  /// Puts the replay's own generators where draws the recording does not answer (code that now
  /// draws more than it did) start: UUIDs counting on past the largest `incrementing` one in
  /// `initialState` and the draws of `actions` (from zero with none: a recording of random ones
  /// cannot meet them), `random` seeded with 0. The same in the REPL's `:replay` and in
  /// `composable replay`, which counted from zero and then repeated the ids the recording
  /// served (an attacker's finding: two replays of one session, two answers, duplicate ids).
  /// `effectDraws`: what effects drew besides (a session's `effect.run` coroutines), which a
  /// session file does not keep but a REPL session does.
  func answerBeyond(
    _ actions: [RecordedAction], initialState: LuaValue,
    effectDraws: [LuaEnvironmentTape.Draw] = []
  ) {
    let largest = IncrementingUUIDs.largest(
      in: actions.flatMap(\.draws) + effectDraws, and: [initialState])
    let values = dependencies.values
    values.uuid.move(to: largest.map { ($0 &+ 1) & UUIDGenerator.incrementingLast } ?? 0)
    values.random.move(to: 0)
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
