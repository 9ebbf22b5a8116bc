import Composable
import ComposableLua
import Foundation
import LuaKit

/// What the REPL's store is sent: an action a person typed, one an effect sent back, a jump in
/// time, or a replay of the session.
public enum ReplAction: Sendable {
  /// An action a person typed.
  case typed(LuaValue)
  /// An action an effect sent back.
  case fromEffect(LuaValue)
  /// An action `effect.send` fed back, reduced at once after the one that sent it.
  case sentAtOnce(LuaValue)
  /// The state as it was after action N of the timeline (0: the initial state).
  case jump(to: Int)
  /// The session's actions up to where it stands, again from the initial state through the
  /// code loaded now; what differs is printed.
  case replay
  /// After a reload swapped the code in: what its `migrate` changed, if it has one, is printed,
  /// and the timeline keeps where it happened (`SessionTimeline.Boundary`).
  case reloaded
  /// Before time travel, `:save` or `:test` cross a reload: whether the code of now makes the
  /// states the session showed before it (`SessionTimeline.reloadCheck`).
  case checkReloads
}

/// The feature's reducer as the REPL runs it: each action is recorded on the timeline and
/// printed with the difference it made, in Lua; the actions its effects send back come in
/// marked. Jumps and replays run here too, so that no action is reduced in the middle of one.
struct ReplReducer: Reducer {
  typealias State = LuaFeatureHandle
  typealias Action = ReplAction

  let feature: LuaFeature
  let base: LuaFeatureReducer<LuaFeatureHandle>
  let timeline: SessionTimeline
  let replayer: SessionReplayer
  /// The store's: the generators a jump puts back (the replayer has its own).
  let storeDependencies: DependencyValues
  let clock: ReplClock
  let printer: ReplPrinter
  let snapshot: StateSnapshot
  /// Where the session is in the feature's stacks and presentations, printed as it changes.
  let navigation: ReplNavigation
  /// Counts each action that fails, for the host's exit status.
  let failures: SessionFailures
  /// Held while an action is reduced and shown: a host that saves and ends on a signal takes it
  /// first, so that it never saves between an action's commit and its printed changes.
  let actionGate: NSLock?

  func reduce(into state: inout LuaFeatureHandle, action: ReplAction) -> Effect<ReplAction> {
    actionGate?.lock()
    defer { actionGate?.unlock() }
    let (value, fromEffect, atOnce): (LuaValue, Bool, Bool)
    switch action {
    case let .jump(number):
      jump(to: number)
      return .none
    case .replay:
      replay()
      return .none
    case .reloaded:
      reloaded()
      return .none
    case .checkReloads:
      checkReloads()
      return .none
    case let .typed(typed): (value, fromEffect, atOnce) = (typed, false, false)
    case let .fromEffect(sent): (value, fromEffect, atOnce) = (sent, true, false)
    case let .sentAtOnce(sent): (value, fromEffect, atOnce) = (sent, true, true)
    }
    _ = replayer.tape.takeRecorded()  // answers drawn outside an action are not its own
    // Its effects' answers are kept under the number it gets (a jump's replay counted others).
    replayer.tape.numberNextAction(timeline.position + 1)
    // The requests begun before it: its own effects' come after (they may begin before it is
    // recorded).
    let requestsBegun = timeline.requestsBegunNow?() ?? 0
    // What the action changed comes from its transaction: no comparison of the whole state.
    let outcome = base.step(into: &state, action: value, readingChanges: true)
    let recorded = RecordedAction(
      action: value, fromEffect: fromEffect, time: Seconds.of(clock.now.offset),
      draws: replayer.tape.takeRecorded(), effect: outcome.returned.effectDescription,
      error: outcome.error?.recordedMessage, didNothing: !outcome.wrote,
      afterJump: timeline.takeEffectsCancelled(), sentAtOnce: atOnce)
    if outcome.error != nil { failures.noteAction() }
    if outcome.error == nil, outcome.wrote {
      snapshot.actionWrote()
      // A type that changed the state is one the feature handles: offered from now on.
      // (Whether it wrote, not a comparison of two whole states, which costs what they hold.)
      if !fromEffect, let type = value.type.stringValue { printer.noteSeen(type) }
    }
    // The state is read for a checkpoint only (the timeline asks every so many actions).
    let hashes = ActionHashes(
      changes: (try? outcome.changes.get()).map(\.hashValue),
      effectCode: feature.codeHash(ofFunctionsIn: outcome.returned))
    let number = timeline.record(
      recorded, hashes: hashes, generators: storeDependencies.generatorPositions,
      requestsBegun: requestsBegun,
      stateAfter: snapshot.value)
    printer.reduced(number: number, recorded, changes: outcome.changes, error: outcome.error)
    if outcome.error == nil, outcome.wrote { showNavigation() }
    return outcome.effect.map(atOnce: ReplAction.sentAtOnce, later: ReplAction.fromEffect)
  }

  /// A line for each stack or presented destination that changed: a screen pushed or popped, a
  /// sheet presented or closed.
  private func showNavigation() {
    for line in navigation.changes(in: feature) { printer.line("  ▸ " + line) }
  }

  private func jump(to number: Int) {
    do throws(LuaFeatureError) {
      var number = number
      if let stale = timeline.staleActionsAfter, number > stale {
        number = try redo(to: number, from: stale)
      } else {
        try replayer.restore(timeline, to: number)
      }
      timeline.move(to: number)
      timeline.effectsCancelled()  // by the session, before it sent the jump
      // Nothing runs after a jump: what the replays on the way noted as running is not.
      try feature.forgetRunningEffects()
      moveGenerators(to: number)
      snapshot.value = try feature.state()
    } catch {
      printer.error(error.description)
    }
  }

  /// Puts the store's `env.uuid()` (an incrementing one) and `env.random()` where they stood
  /// after action `number`: what comes next draws as it would in a run of the actions up to
  /// there, not after the draws of actions undone. (The draws of a replay come from the
  /// recording, and one the code of now adds from the replayer's own generators.)
  private func moveGenerators(to number: Int) {
    guard var positions = timeline.generators(after: number) else { return }
    // Past every incrementing UUID the branch drew: actions replayed or redone through code that
    // draws more drew some the recorded position does not count, and the next action repeated
    // them (an attacker's finding). A fresh run of the branch would count on past them.
    if let uuid = positions.uuid, timeline.drawsReplaced {
      // The reducers' draws and the effects' (an `effect.run` coroutine's id counted too).
      let effects = timeline.effectDraws(after: 0).filter { $0.startedBy <= number }.map(\.draw)
      if let largest = IncrementingUUIDs.largest(
        in: timeline.actions.prefix(number).flatMap(\.draws) + effects)
      {
        positions.uuid = max(uuid, (largest &+ 1) & UUIDGenerator.incrementingLast)
      }
    }
    storeDependencies.moveGenerators(to: positions)
  }

  /// Goes forward over actions undone before a reload (past `stale`) to after action `number`:
  /// they run through the code of now, from the state the reload kept, and are kept as they went
  /// now (their draws, effects, errors and changes), so that what is saved and tested is what
  /// is shown. Says so.
  ///
  /// An action whose effect is another now ends it: what its effect sent (the actions after it
  /// from effects) was the old code's, and a test of the session would wait for it in vain, so
  /// the actions after it go, as a new action there would drop them. Returns where it ended.
  private func redo(to number: Int, from stale: Int) throws(LuaFeatureError) -> Int {
    try replayer.restore(timeline, to: stale)
    let actions = timeline.actions
    // Draws the code of now adds count on past every one the session made.
    replayer.answerBeyond(
      actions, initialState: timeline.startState, effectDraws: timeline.allEffectDraws)
    var redone: [(action: RecordedAction, hashes: ActionHashes)] = []
    var notes: [String] = []
    var end = number
    var cut: Int?
    for index in stale..<number {
      let outcome = replayer.replay(actions[index], readingChanges: true)
      redone.append((outcome.action, outcome.hashes))
      if let error = outcome.action.error, error != actions[index].error {
        notes.append("  action \(index + 1) fails now, rolled back: \(error)")
      }
      if !RecordedAction.sameEffect(outcome.action.effect, actions[index].effect)
        || outcome.hashes.effectCode != timeline.hashes(of: index + 1).effectCode
      {
        end = index + 1
        cut = end
        let after = actions.count - end
        if after > 0 {
          notes.append(
            "  action \(end) returns another effect now: the \(after) undone action"
              + (after == 1 ? "" : "s") + " after it, typed ones too, are dropped (they came "
              + "after what the old effect did, and the actions it sent are among them)")
        }
        break
      }
    }
    timeline.redone(redone, droppingAfter: cut)
    let which = end - stale == 1 ? "action \(end)" : "actions \(stale + 1) to \(end)"
    let before =
      timeline.staleActionsSince == .replay ? ":replay" : "the code was reloaded"
    let lines =
      ["  (\(which), undone before \(before), ran again through the code of now)"] + notes
    printer.line(lines.joined(separator: "\n"))
    return end
  }

  /// Runs the actions up to the timeline's position again from its initial state, comparing
  /// each with how it went when recorded; prints the state's difference and the first action
  /// that now raises or returns another effect.
  private func replay() {
    let before = snapshot.value
    let actions = timeline.actions.prefix(timeline.position)
    var replayed: [RecordedAction] = []
    replayed.reserveCapacity(actions.count)
    var hashes: [ActionHashes] = []
    var checkpoints: [Int: LuaValue] = [:]
    var report = ReplayReport()
    do throws(LuaFeatureError) {
      try feature.setState(timeline.startState)
      try feature.forgetRunningEffects()  // as at the session's start (effects were cancelled)
      replayer.answerBeyond(
        Array(actions), initialState: timeline.startState, effectDraws: timeline.allEffectDraws)
      for (index, recorded) in actions.enumerated() {
        let outcome = replayer.replay(recorded, readingChanges: true)
        report.compare(
          number: index + 1, recorded: recorded, now: outcome,
          effectCode: timeline.hashes(of: index + 1))
        replayed.append(outcome.action)
        hashes.append(outcome.hashes)
        if (index + 1) % timeline.checkpointInterval == 0 {
          checkpoints[index + 1] = try feature.state()
        }
      }
      timeline.replace(replayed, hashes: hashes, checkpoints: checkpoints)
      moveGenerators(to: timeline.position)
      let after = try feature.state()
      snapshot.value = after
      printer.replayed(report, before: before, after: after)
      if !report.asRecorded { failures.noteReplay() }
      showNavigation()
    } catch {
      printer.error(error.description)
    }
  }

  /// Prints what the last reload's `migrate` changed, read from its transaction, and keeps where
  /// the reload happened on the timeline, with the state it left.
  private func reloaded() {
    var migrated = false
    if feature.hasMigrate {
      // As `run --watch` says it: what `migrate` changed, or that it changed nothing.
      let difference = LuaValue.notation(of: feature.migrationChanges, colored: printer.colored)
      printer.line(printer.indented(difference ?? "(No state changes)"))
      showNavigation()
      snapshot.actionWrote()  // migrate wrote: read again when asked
      if case .success(let changes) = feature.migrationChanges { migrated = !changes.isEmpty }
    }
    // The state is kept only where the timeline keeps it (a reload before any action marks
    // nothing), and after a reload without a migration as a copy in the VM, read only if time
    // travel, :save or :test need it: a snapshot of a large state was most of a reload's time.
    var kept: KeptState?
    if migrated {
      kept = KeptState(snapshot.value)
    } else if timeline.position > 0 {
      kept = (try? feature.stateCopy()).map(KeptState.init(copy:)) ?? KeptState(snapshot.value)
    }
    timeline.reloaded(leaving: kept, migrated: migrated)
  }

  /// Replays the actions before the reloads not checked yet through the code of now, from the
  /// state they started from, comparing each state the timeline kept on the way, and each
  /// action's effect and error, with how they went; then puts the state back as it was. The
  /// reloads go if all is the same (time travel crosses them); if not, they stay, with the
  /// first action after which it differs.
  private func checkReloads() {
    guard let check = timeline.reloadCheck() else { return }
    let live = snapshot.value
    let actions = timeline.actions
    var difference: (after: Int, what: String)?
    var number = check.start.position
    // The replays start with no child running effects, as the session did (the record of them
    // is a function of the actions, and of the jumps, which forget it); the live record is put
    // back after, with the state: its effects run on. Kept, a replay from the start found each
    // child of the live session running and cancelled it (`action 1's effect differs`: a new
    // user's finding).
    let running = try? feature.setAsideRunningEffects()
    defer { if let running { try? feature.restoreRunningEffects(running) } }
    do throws(LuaFeatureError) {
      try feature.setState(check.start.state)
      while difference == nil, number < check.end {
        number += 1
        let recorded = actions[number - 1]
        let outcome = replayer.replay(recorded, readingChanges: true)
        let now = outcome.action
        if !RecordedAction.sameError(now.error, recorded.error) {
          let then = recorded.error.map { "\"\($0.prefix(80))\"" } ?? "none"
          let nowSaid = now.error.map { "\"\($0.prefix(80))\"" } ?? "none"
          difference = (number, "action \(number)'s error (was \(then), now \(nowSaid))")
        } else if !RecordedAction.sameEffect(now.effect, recorded.effect) {
          difference = (number, "action \(number)'s effect")
        } else if outcome.hashes.effectCode != timeline.hashes(of: number).effectCode {
          difference = (number, "the code of action \(number)'s effect")
        } else if let hash = timeline.hashes(of: number).changes, outcome.hashes.changes != hash {
          difference = (number, "what action \(number) changed")
        } else if let kept = check.states[number], !Self.sameState(try feature.state(), kept) {
          difference = (number, "the state after action \(number)")
        }
      }
    } catch {
      difference = (number, "the state after action \(number), which cannot be read")
    }
    do throws(LuaFeatureError) { try feature.setState(live) } catch {
      printer.error(error.description)
    }
    timeline.reloadsChecked(
      upTo: check.end, differsAfter: difference?.after, difference: difference?.what)
  }

  /// Whether two states are the same, which tables are one table included: `==` compares
  /// contents, and a reload that copied a table where the old code shared it made other states
  /// from the same changes (an attacker's finding). The description labels shared tables.
  static func sameState(_ one: LuaValue, _ other: LuaValue) -> Bool {
    one == other && one.description(limit: .max) == other.description(limit: .max)
  }
}
