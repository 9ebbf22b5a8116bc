import ComposableLua
import Foundation
import LuaKit

/// A session's actions as time travel sees them: the recorded branch, where the state stands
/// on it (`position`: after action `position`, 0 being the initial state), and checkpoints of
/// the state every `checkpointInterval` actions, so that any state is a checkpoint plus at
/// most `checkpointInterval - 1` actions replayed.
///
/// After a jump back, the actions past `position` stay (`:redo` goes forward through them)
/// until an action is recorded: the new branch starts there and the old tail is dropped, as an
/// editor's undo does.
///
/// Checkpoints hold at most `checkpointBudget` bytes (`LuaValue.heldBytes`) together: past it,
/// the oldest go (the initial state stays), and a jump to an action before the oldest left
/// replays from the initial state. A feature whose state is tens of MB made a few hundred
/// actions hold gigabytes of checkpoints in the host otherwise.
///
/// Shared by the store's reducer (which records and jumps) and the session's commands (which
/// read); behind a lock.
public final class SessionTimeline: @unchecked Sendable {
  /// A jump replays at most this many actions less one. A checkpoint of the todos feature with
  /// 1,000 todos holds about 250 KB; at 100, a 10,000-action session keeps 25 MB of them.
  public let checkpointInterval: Int
  /// The most bytes the checkpoints but the initial state's may hold together.
  public let checkpointBudget: Int
  /// The state the timeline was made with. A reload's `migrate` while the session stands at 0
  /// does not change it (see `lastMigration`).
  public let initialState: LuaValue
  // Sendable by construction: everything below is reached only under `lock`.
  private let lock = NSLock()
  private var recorded: [RecordedAction] = []
  private var current = 0
  /// Where a jump last cancelled the effects running (see `effectsCancelled`).
  private var cancelledAt: Int?
  private var checkpoints: [Int: LuaValue]
  /// The bytes each checkpoint but the initial state's holds, and their sum.
  private var checkpointBytes: [Int: Int] = [:]
  private var checkpointTotal = 0

  /// A timeline at its initial state, with no action yet. `checkpointInterval` counts as at least
  /// 1; `checkpointBudget` is in bytes (256 MiB by default).
  ///
  /// ```swift
  /// let timeline = SessionTimeline(initialState: ["count": 0], checkpointInterval: 50)
  /// let number = timeline.record(
  ///   RecordedAction(action: ["type": "increment"], fromEffect: false, time: 0),
  ///   stateAfter: ["count": 1])
  /// assert(number == 1 && timeline.position == 1)
  /// ```
  public init(
    initialState: LuaValue, checkpointInterval: Int = 100, checkpointBudget: Int = 256 << 20
  ) {
    self.initialState = initialState
    self.checkpointInterval = max(1, checkpointInterval)
    self.checkpointBudget = checkpointBudget
    checkpoints = [0: initialState]
  }

  /// Keeps `state` as the checkpoint after action `position`, then drops the oldest others
  /// until all fit the budget (the newest is kept even if it alone does not). Under `lock`.
  private func keep(_ state: LuaValue, at position: Int) {
    guard position != 0 else { return }
    let bytes = state.heldBytes
    checkpointTotal += bytes - (checkpointBytes[position] ?? 0)
    checkpoints[position] = state
    checkpointBytes[position] = bytes
    for oldest in checkpointBytes.keys.sorted() where checkpointTotal > checkpointBudget {
      guard oldest != position else { break }
      checkpointTotal -= checkpointBytes.removeValue(forKey: oldest) ?? 0
      checkpoints[oldest] = nil
    }
  }

  /// Drops the checkpoints after action `position`. Under `lock`.
  private func dropCheckpoints(after position: Int) {
    for key in checkpointBytes.keys where key > position {
      checkpointTotal -= checkpointBytes.removeValue(forKey: key) ?? 0
      checkpoints[key] = nil
    }
  }

  /// The branch's actions, numbered from 1 (`actions[0]` is action 1), those past `position`
  /// included.
  public var actions: [RecordedAction] { lock.withLock { recorded } }

  /// The number of the last action the state reflects; 0 at the initial state.
  public var position: Int { lock.withLock { current } }

  /// How many actions the branch holds, undone ones past `position` included.
  public var count: Int { lock.withLock { recorded.count } }

  /// Action `number` (from 1), or nil.
  public func action(_ number: Int) -> RecordedAction? {
    lock.withLock { recorded.indices.contains(number - 1) ? recorded[number - 1] : nil }
  }

  /// Records an action reduced at `position`, after which the state is `state`: the actions
  /// past `position` (undone ones) are dropped first. Returns the action's number.
  @discardableResult
  public func record(
    _ action: RecordedAction, stateAfter state: @autoclosure () -> LuaValue
  )
    -> Int
  {
    let number = lock.withLock {
      let takesNewBranch = current < recorded.count || action.afterJump
      if current < recorded.count {
        recorded.removeSubrange(current...)
        dropCheckpoints(after: current)
      }
      if takesNewBranch {
        // A new branch: what effects drew on the one left behind goes, as does what effects of
        // the actions kept drew after the last of them (a test cancels them there).
        let cut = timeOfPosition()
        effectDraws.removeAll { $0.startedBy > current || $0.time > cut }
        sleepsDueNow.dropBranch(from: current)
        cancelledByHand.dropBranch(from: current)
        effectFailures.dropBranch(from: current)
      }
      recorded.append(action)
      current = recorded.count
      return current
    }
    // Read outside the lock: reading the state waits for the feature, whose effects, drawing
    // from `env`, wait for the lock (`noteEffectDraw`). Only the reducer records, one action
    // at a time, so nothing moves the timeline meanwhile.
    if number % checkpointInterval == 0 {
      let state = state()
      lock.withLock { keep(state, at: number) }
    }
    return number
  }

  /// The nearest checkpoint at or before action `number`: its position and state. (Most sit
  /// every `checkpointInterval` actions; a migration's sits where it happened.)
  public func checkpoint(atOrBefore number: Int) -> (position: Int, state: LuaValue) {
    lock.withLock {
      let limit = min(number, recorded.count)
      let position = checkpoints.keys.filter { $0 <= limit }.max() ?? 0
      return (position, checkpoints[position] ?? initialState)
    }
  }

  /// The state the session starts from now: `initialState`, or what a reload's `migrate` made
  /// of it while the session stood at 0 (a replay starts there, as the actions ran from there).
  public var startState: LuaValue { lock.withLock { checkpoints[0] ?? initialState } }

  /// A reload's `migrate` changed the state where the session stands, outside any action: the
  /// state it left is kept as the checkpoint there, so that a jump to this point or past it
  /// starts from the migrated state rather than replaying the actions as if it never ran.
  /// Checkpoints after it (states the migration never saw) go; so do checkpoints of a jump
  /// back to before it, as every state kept now is one the code of now made.
  func migrated(to state: LuaValue) {
    lock.withLock {
      dropCheckpoints(after: current)
      if current == 0 {
        checkpoints[0] = state  // the initial state itself, as the session now starts from
      } else {
        keep(state, at: current)
      }
      migrations.removeAll { $0.position >= current }  // a branch left behind
      migrations.append((current, state))
    }
  }

  /// Where reloads' `migrate` changed the state, by the action they came after (0: before
  /// any), in order. The states before the last of them were made by code the session no
  /// longer has: time travel does not go there, and a saved session or a test starts after it.
  public var migrationPositions: [Int] { lock.withLock { migrations.map(\.position) } }

  /// The last migration at or before where the session stands, with the state it left.
  public var lastMigration: (position: Int, state: LuaValue)? {
    lock.withLock { migrations.last { $0.position <= current } }
  }
  private var migrations: [(position: Int, state: LuaValue)] = []

  /// What `env` answered effects' coroutines, in order, each with the number of the action
  /// that started the effect. Not written to a saved session (a replay runs no effect): a test
  /// written from the session plays them back to the effects of the same actions.
  private var effectDraws: [(startedBy: Int, time: Double, draw: LuaEnvironmentTape.Draw)] = []

  /// When the action the session stands after was reduced; before any time at 0. Under `lock`.
  private func timeOfPosition() -> Double {
    current == 0 ? -Double.infinity : recorded[current - 1].time
  }

  /// Notes what `env` answered an effect that action `startedBy` started, at `time` (seconds
  /// on the session's clock, as actions' times).
  func noteEffectDraw(_ draw: LuaEnvironmentTape.Draw, startedBy: Int, time: Double) {
    lock.withLock { effectDraws.append((startedBy, time, draw)) }
  }

  /// What `env` answered the effects of the actions after action `start` up to where the
  /// session stands, in order, each with the action that started its effect: those a test of
  /// those actions gets. Not what they drew after the last of those actions: a test goes no
  /// further in time (a jump back left them running on, and cancelled them).
  func effectDraws(after start: Int) -> [(startedBy: Int, draw: LuaEnvironmentTape.Draw)] {
    lock.withLock {
      let end = timeOfPosition()
      return effectDraws.filter {
        $0.startedBy > start && $0.startedBy <= current && $0.time <= end
      }
      .map { ($0.startedBy, $0.draw) }
    }
  }

  /// Where sleeps of effects until a time the clock had reached when they began (a `sleep(0)`)
  /// ended: a test clock wakes those sleeps only at an advance, so a test advances by zero
  /// before the next action. Not written to a saved session.
  private var sleepsDueNow = NotesBetweenActions<Void>()

  /// Notes that an effect's sleep of zero ended where the session stands.
  func noteSleepDueNow() { lock.withLock { sleepsDueNow.note((), after: current) } }

  /// The actions after action `start`, up to where the session stands, before which an effect's
  /// sleep of zero ended (after the action before them), numbered from `start`.
  func actionsAfterSleepsDueNow(after start: Int) -> Set<Int> {
    lock.withLock { Set(sleepsDueNow.byNextAction(after: start, upTo: current - 1).keys) }
  }

  /// The effects `:cancel` ended, as `:effects` named them. A test cannot end an effect so: it
  /// says where the session did.
  private var cancelledByHand = NotesBetweenActions<String>()

  /// Notes that `:cancel` ended the effect `what` where the session stands.
  func noteCancelledByHand(_ what: String) {
    lock.withLock { cancelledByHand.note(what, after: current) }
  }

  /// The effects `:cancel` ended after action `start`, up to where the session stands, by the
  /// action they came before (numbered from `start`; one past the last for those after it).
  func effectsCancelledByHand(after start: Int) -> [Int: [String]] {
    lock.withLock { cancelledByHand.byNextAction(after: start, upTo: current) }
  }

  /// Effects' own failures (an `effect.run` coroutine that raised), with their time and the
  /// message a test expects of them.
  private var effectFailures = NotesBetweenActions<(time: Double, message: String)>()

  /// Notes that an effect failed where the session stands, at `time` (seconds on its clock).
  func noteEffectFailure(_ message: String, time: Double) {
    lock.withLock { effectFailures.note((time, message), after: current) }
  }

  /// The effects' failures after action `start`, up to where the session stands, by the action
  /// they came before (numbered from `start`; one past the last for those after it).
  func effectFailures(after start: Int) -> [Int: [(time: Double, message: String)]] {
    lock.withLock { effectFailures.byNextAction(after: start, upTo: current) }
  }

  /// The state now stands after action `number`.
  func move(to number: Int) { lock.withLock { current = number } }

  /// A jump cancelled every effect running, where the session stands now: the next action
  /// recorded here says so (`RecordedAction.afterJump`).
  func effectsCancelled() { lock.withLock { cancelledAt = current } }

  /// Whether the action about to be recorded comes right after a jump cancelled the effects;
  /// asked once per action.
  func takeEffectsCancelled() -> Bool {
    lock.withLock {
      defer { cancelledAt = nil }
      return cancelledAt == current
    }
  }

  /// After a replay through new code: the actions as they now went (their draws, effects and
  /// errors), and the checkpoints taken on the way, which replace the old ones.
  func replace(_ actions: [RecordedAction], checkpoints: [Int: LuaValue]) {
    lock.withLock {
      recorded.replaceSubrange(0..<actions.count, with: actions)
      self.checkpoints = [0: self.checkpoints[0] ?? initialState]
      checkpointBytes = [:]
      checkpointTotal = 0
      for (position, state) in checkpoints.sorted(by: { $0.key < $1.key }) {
        keep(state, at: position)
      }
    }
  }

  /// How many checkpoints are kept (for tests and benchmarks).
  public var checkpointCount: Int { lock.withLock { checkpoints.count } }

  /// The bytes the checkpoints but the initial state's hold together.
  public var checkpointBytesHeld: Int { lock.withLock { checkpointTotal } }
}

/// What a session noted between its actions (a sleep of zero, a `:cancel`, an effect's failure),
/// each by the number of the action it stood after then: a test written from the session puts
/// each before the action that came next. Reached only under the timeline's lock.
struct NotesBetweenActions<Value> {
  private var notes: [(after: Int, value: Value)] = []

  /// Notes `value` after action `position`.
  mutating func note(_ value: Value, after position: Int) { notes.append((position, value)) }

  /// Drops what was noted at `position` or after: a new branch starts there.
  mutating func dropBranch(from position: Int) { notes.removeAll { $0.after >= position } }

  /// What was noted after action `start` up to after action `end`, by the action it came before,
  /// numbered from `start` (one past `end` for what came after it).
  func byNextAction(after start: Int, upTo end: Int) -> [Int: [Value]] {
    var byAction: [Int: [Value]] = [:]
    for note in notes where note.after >= start && note.after <= end {
      byAction[note.after + 1 - start, default: []].append(note.value)
    }
    return byAction
  }
}
