import Composable
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
  /// Hashes of the changes each action made (`LuaDifference`s, from its transaction) and of the
  /// code its effect would run, by action as `recorded`. What a check of a reload compares each
  /// action replayed with: equal changes from an equal state, action after action, are equal
  /// states all along, where a comparison at kept states only missed a state changed in
  /// between; and a coroutine whose body changed sends other actions than those recorded.
  private var hashes: [ActionHashes] = []
  /// Where the store's generators stood after each action, by action as `recorded` (nil where
  /// not given), and at the start: a jump puts them back there (`generators(after:)`).
  private var generatorsAfter: [GeneratorPositions?] = []
  /// How many requests the session's effects had begun when each action was reduced (given to
  /// `record`), by action as `recorded`.
  private var requestsBefore: [Int] = []
  private let startGenerators: GeneratorPositions?
  /// Where the actions undone before a reload or a `:replay` begin (they are past it): made by
  /// the code before, or on a history the replay changed, they are redone through the code of
  /// now when time travel goes forward over them, and kept as they went then (`redone`). Nil
  /// when no such action is left.
  private var staleAfter: Int?
  /// Whether a replay or a redo through new code replaced recorded actions (their draws may
  /// hold more than the store's generators counted).
  private var replaced = false
  /// What made the actions past `staleAfter` stale, the last of the two.
  private var staleSince: StaleSince = .reload
  private var current = 0
  /// Where a jump last cancelled the effects running (see `effectsCancelled`).
  private var cancelledAt: Int?
  private var checkpoints: [Int: LuaValue]
  /// The bytes each checkpoint but the initial state's holds, and their sum.
  private var checkpointBytes: [Int: Int] = [:]
  private var checkpointTotal = 0

  /// A timeline at its initial state, with no action yet. `checkpointInterval` counts as at least
  /// 1; `checkpointBudget` is in bytes (256 MiB by default). `generators`: where the store's
  /// generators stand at the start, if they are to go back there.
  ///
  /// ```swift
  /// let timeline = SessionTimeline(initialState: ["count": 0], checkpointInterval: 50)
  /// let number = timeline.record(
  ///   RecordedAction(action: ["type": "increment"], fromEffect: false, time: 0),
  ///   stateAfter: ["count": 1])
  /// assert(number == 1 && timeline.position == 1)
  /// ```
  public init(
    initialState: LuaValue, checkpointInterval: Int = 100, checkpointBudget: Int = 256 << 20,
    generators: GeneratorPositions? = nil
  ) {
    self.initialState = initialState
    self.startGenerators = generators
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

  /// Records an action reduced at `position`, after which the state is `state` and the store's
  /// generators stand at `generators`: the actions past `position` (undone ones) are dropped
  /// first. Returns the action's number.
  @discardableResult
  public func record(
    _ action: RecordedAction, hashes actionHashes: ActionHashes = ActionHashes(),
    generators: GeneratorPositions? = nil, requestsBegun: Int = 0,
    stateAfter state: @autoclosure () -> LuaValue
  )
    -> Int
  {
    var newBranchAfter: (position: Int, requestsFrom: Int?, time: Double)?
    let number = lock.withLock {
      let takesNewBranch = current < recorded.count || action.afterJump
      // Requests begun once the action after this point was: made in the time left behind.
      let requestsFrom = requestsBefore.indices.contains(current) ? requestsBefore[current] : nil
      if current < recorded.count {
        recorded.removeSubrange(current...)
        hashes.removeSubrange(current...)
        generatorsAfter.removeSubrange(current...)
        requestsBefore.removeSubrange(current...)
        dropCheckpoints(after: current)
        staleAfter = nil
      }
      if takesNewBranch {
        // A new branch: what effects drew on the one left behind goes, as does what effects of
        // the actions kept drew after the last of them (a test cancels them there).
        let cut = timeOfPosition()
        effectDraws.removeAll { $0.startedBy > current || $0.time > cut }
        sleepsDueNow.dropBranch(from: current)
        cancelledByHand.dropBranch(from: current)
        effectFailures.dropBranch(from: current)
        newBranchAfter = (current, requestsFrom, cut)
      }
      recorded.append(action)
      hashes.append(actionHashes)
      generatorsAfter.append(generators)
      requestsBefore.append(requestsBegun)
      current = recorded.count
      return current
    }
    if let newBranchAfter {
      branchObserver?(
        newBranchAfter.position, newBranchAfter.requestsFrom, newBranchAfter.time, requestsBegun)
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
  /// every `checkpointInterval` actions; a reload's sits where it happened, and is kept with it
  /// when the budget drops the checkpoint.)
  public func checkpoint(atOrBefore number: Int) -> (position: Int, state: LuaValue) {
    let found = lock.withLock { () -> (Int, LuaValue?, KeptState?) in
      let limit = min(number, recorded.count)
      let position = checkpoints.keys.filter { $0 <= limit }.max() ?? 0
      if let boundary = kept.last(where: { $0.position <= limit }), boundary.position > position {
        return (boundary.position, nil, boundary.keptState)
      }
      return (position, checkpoints[position] ?? initialState, nil)
    }
    return (found.0, found.1 ?? found.2?.state ?? initialState)  // read outside the lock
  }

  /// The state the session starts from now: `initialState`, or what a reload's `migrate` made
  /// of it while the session stood at 0 (a replay starts there, as the actions ran from there).
  public var startState: LuaValue { lock.withLock { checkpoints[0] ?? initialState } }

  /// A point of the session's history before which the states shown were made by code it no
  /// longer has: a reload after action `position`, which left `state`.
  public struct Boundary: Sendable {
    /// What happened there.
    public enum Kind: Sendable, Equatable {
      /// A reload's `migrate` changed the state outside any action: the actions before it ran
      /// on another state, and no code of now makes the states before it.
      case migration
      /// The code was swapped, the state kept. Checked when time travel, `:save` or `:test`
      /// would cross it: if the code of now makes the same states from the actions before
      /// it, it goes (`reloadsChecked`); if not, it stays, and `differsAfter` says where.
      case reload
    }
    /// What happened there.
    public var kind: Kind
    /// The action it came after (0: before any).
    public var position: Int
    /// The state it left, where the session went on from. Read outside the timeline's lock
    /// (see `KeptState`).
    public var state: LuaValue { keptState.state }
    let keptState: KeptState
    /// For a reload checked and found to change the history: the first action after which the
    /// code of now made another state, or another effect or error, as found.
    public var differsAfter: Int?
    /// What differed there, in words: `the state after action 2`, `action 1's effect`.
    public var difference: String?
  }

  /// A reload swapped the code where the session stands, keeping the state, or its `migrate`
  /// changed it (`migrated`): the state it left is kept with the boundary there (a migration's
  /// as a checkpoint too), so that a jump to this point or past it starts from it rather than
  /// replaying the actions before it through code that did not make them. Checkpoints after it
  /// (states of undone actions, made by the code before) go, and those actions are stale; so
  /// do boundaries after it, on a branch left behind.
  ///
  /// A migration at 0 is the session's new start. A reload at 0 marks nothing: no state shown
  /// before it was made by any code (`state` may be nil only then). A migration's state is a
  /// snapshot, read here under the lock; a reload's may be a copy in the VM, not read here.
  func reloaded(leaving state: KeptState?, migrated: Bool) {
    lock.withLock {
      dropCheckpoints(after: current)
      if current < recorded.count {
        staleAfter = min(staleAfter ?? current, current)
        staleSince = .reload
      }
      kept.removeAll { $0.position > current }
      guard current > 0 || migrated, let state else { return }
      // Only the last reload counts: a check that finds the code of now making the states shown
      // crosses it and every reload before it (it replays from the last migration, or the
      // start); one that does not stops time travel there, before the others. So one reload
      // is kept, with one state: a session of a hundred saves held a hundred states.
      guard migrated else {
        // A migration at this point stays the point, whatever reloads come after it.
        if let last = kept.last, last.kind == .migration, last.position == current { return }
        kept.removeAll { $0.kind == .reload }
        // Not a checkpoint (whose bytes are counted and dropped past a budget): the boundary
        // keeps its state, and jumps start from it (`checkpoint(atOrBefore:)`).
        kept.append(Boundary(kind: .reload, position: current, keptState: state))
        return
      }
      if current == 0 {
        checkpoints[0] = state.state  // the initial state itself, as the session now starts from
      } else {
        keep(state.state, at: current)
      }
      // Reloads before it, and one at its point: it is the floor now.
      kept.removeAll { $0.kind == .reload || $0.position == current }
      kept.append(Boundary(kind: .migration, position: current, keptState: state))
    }
  }

  /// The points of the session's history that time travel does not go back past (a migration,
  /// a reload found to change the history, or one not checked yet), in order.
  public var boundaries: [Boundary] { lock.withLock { kept } }

  /// The last boundary at or before where the session stands: time travel goes no further back,
  /// and a saved session or a test starts there.
  public var lastBoundary: Boundary? {
    lock.withLock { kept.last { $0.position <= current } }
  }

  /// The last migration at or before where the session stands.
  public var lastMigration: Boundary? {
    lock.withLock { kept.last { $0.position <= current && $0.kind == .migration } }
  }
  private var kept: [Boundary] = []

  /// Whether a reload waits for its check (`reloadCheck`), asked without reading a state.
  public var hasReloadToCheck: Bool { lock.withLock { reloadsToCheck() != nil } }

  /// The last migration where the session stands (nil for none) and the reloads after it, when
  /// the last of them waits for its check; nil when none does (a reload already found to change
  /// the history stands until the code changes again). Under `lock`.
  private func reloadsToCheck() -> (floor: Boundary?, reloads: [Boundary])? {
    let floor = kept.last { $0.position <= current && $0.kind == .migration }
    let reloads = kept.filter {
      $0.kind == .reload && $0.position <= current && $0.position > (floor?.position ?? 0)
    }
    guard let last = reloads.last, last.differsAfter == nil else { return nil }
    return (floor, reloads)
  }

  /// What a check of the reloads since the last migration replays: from the state `start`
  /// left (or the start's), the actions up to the last reload not yet checked, comparing the
  /// states kept on the way (checkpoints and the reloads' own), by position. Nil when no
  /// reload waits for its check.
  public func reloadCheck() -> (
    start: (position: Int, state: LuaValue), end: Int,
    states: [Int: LuaValue]
  )? {
    let check = lock.withLock {
      () -> (
        start: (position: Int, kept: KeptState?), end: Int, states: [Int: LuaValue],
        reloads: [Boundary]
      )? in
      guard let (floor, reloads) = reloadsToCheck(), let end = reloads.last?.position else {
        return nil
      }
      let start = floor.map { ($0.position, Optional($0.keptState)) } ?? (0, nil)
      let states = checkpoints.filter { $0.key > start.0 && $0.key <= end }
      return (start, end, states, reloads)
    }
    guard let check else { return nil }
    // The states kept in the feature's VM are read outside the lock (see `KeptState`).
    var states = check.states
    for reload in check.reloads { states[reload.position] = reload.state }
    let start = check.start.kept?.state ?? startState
    return ((check.start.position, start), check.end, states)
  }

  /// After a check (`reloadCheck`): the code of now made every state the session showed up to
  /// action `end` again, so the reloads up to there go; or it made another after action
  /// `differsAfter` (`difference` says what), which the reloads from there up to `end` keep,
  /// for what time travel says.
  public func reloadsChecked(
    upTo end: Int, differsAfter: Int? = nil, difference: String? = nil
  ) {
    lock.withLock {
      guard let differsAfter else {
        return kept.removeAll { $0.kind == .reload && $0.position <= end }
      }
      for index in kept.indices
      where kept[index].kind == .reload && kept[index].position <= end
        && kept[index].position >= differsAfter
      {
        kept[index].differsAfter = differsAfter
        kept[index].difference = difference
      }
      // The reloads before the difference are crossed by the states the code of now makes.
      kept.removeAll { $0.kind == .reload && $0.position < differsAfter }
    }
  }

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
  /// Every draw of effects the timeline keeps, of actions undone too.
  var allEffectDraws: [LuaEnvironmentTape.Draw] { lock.withLock { effectDraws.map(\.draw) } }

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
  /// errors, and their hashes), and the checkpoints taken on the way, which replace the old
  /// ones. The actions past them, if any, were not replayed: stale.
  func replace(
    _ actions: [RecordedAction], hashes replayed: [ActionHashes], checkpoints: [Int: LuaValue]
  ) {
    lock.withLock {
      replaced = true
      recorded.replaceSubrange(0..<actions.count, with: actions)
      hashes.replaceSubrange(0..<actions.count, with: replayed)
      if actions.count < recorded.count {
        staleAfter = actions.count
        staleSince = .replay
      }
      kept.removeAll { $0.kind == .reload }  // every state is the code of now's again
      self.checkpoints = [0: self.checkpoints[0] ?? initialState]
      checkpointBytes = [:]
      checkpointTotal = 0
      for (position, state) in checkpoints.sorted(by: { $0.key < $1.key }) {
        keep(state, at: position)
      }
    }
  }

  /// The hashes of action `number` (of its changes, of its effect's code), when known.
  func hashes(of number: Int) -> ActionHashes {
    lock.withLock { hashes.indices.contains(number - 1) ? hashes[number - 1] : ActionHashes() }
  }

  /// Called (outside the lock) with the position a new branch starts after, as an action is
  /// recorded there: the session's requests log drops what the branch left behind made.
  /// Set once, before the first action.
  /// `requestsFrom`: how many requests had begun when the action after `position` was reduced
  /// (nil: none came after it); `time`: the time of action `position`; `until`: how many had
  /// when the new branch's action was (its own come after).
  var branchObserver:
    (@Sendable (_ position: Int, _ requestsFrom: Int?, _ time: Double, _ until: Int) -> Void)?
  /// How many requests the session's effects have begun (its `ExchangeLog`'s count), read by
  /// the reducer before each action. Set once, before the first action.
  var requestsBegunNow: (@Sendable () -> Int)?

  /// How many requests had begun when the action after `position` was recorded: those begun
  /// since belong to the time after it (nil when no action comes after it).
  /// The time of action `position` on the store's clock (-infinity for 0).
  func time(ofAction position: Int) -> Double {
    lock.withLock {
      position == 0 || !recorded.indices.contains(position - 1)
        ? -Double.infinity : recorded[position - 1].time
    }
  }

  func requestsBegun(before position: Int) -> Int? {
    lock.withLock {
      requestsBefore.indices.contains(position) ? requestsBefore[position] : nil
    }
  }

  /// Whether a replay or a redo through new code has replaced recorded actions.
  var drawsReplaced: Bool { lock.withLock { replaced } }

  /// Where the store's generators stood after action `number` (0: at the start), when known.
  /// Actions replayed or redone through new code keep the positions of their first run: their
  /// draws are served from the recording.
  func generators(after number: Int) -> GeneratorPositions? {
    lock.withLock {
      guard number > 0 else { return startGenerators }
      return generatorsAfter.indices.contains(number - 1) ? generatorsAfter[number - 1] : nil
    }
  }

  /// Where the actions undone before a reload or a `:replay` begin, if any are left (see
  /// `staleAfter`).
  var staleActionsAfter: Int? { lock.withLock { staleAfter } }

  /// What made actions stale: the code reloaded, or a `:replay` that ran the session again.
  enum StaleSince { case reload, replay }

  /// What made the actions past `staleActionsAfter` stale, the last of the two.
  var staleActionsSince: StaleSince { lock.withLock { staleSince } }

  /// Actions undone before a reload, from `staleAfter + 1` on, as they went when time travel
  /// redid them through the code of now: they replace the old ones, and are no longer stale.
  /// With `droppingAfter`, the actions after that one go (what they were no longer follows).
  func redone(
    _ actions: [(action: RecordedAction, hashes: ActionHashes)], droppingAfter: Int? = nil
  ) {
    lock.withLock {
      guard let start = staleAfter else { return }
      replaced = true
      for (offset, redone) in actions.enumerated() where start + offset < recorded.count {
        recorded[start + offset] = redone.action
        hashes[start + offset] = redone.hashes
      }
      if let last = droppingAfter, last < recorded.count {
        recorded.removeSubrange(last...)
        hashes.removeSubrange(last...)
        generatorsAfter.removeSubrange(last...)
        requestsBefore.removeSubrange(last...)
        dropCheckpoints(after: last)
      }
      let end = start + actions.count
      staleAfter = end < recorded.count ? end : nil
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
