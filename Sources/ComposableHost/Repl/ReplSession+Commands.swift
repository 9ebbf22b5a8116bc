import Composable
import ComposableLua
import Foundation
import LuaKit

/// The REPL's `:commands`, each listed by `:help`.
extension ReplSession {
  /// The commands and what they do, as `:help` prints them (and completion offers them).
  public static let commands: [(name: String, help: String)] = [
    (":state [path]", "the state, or a part of it (:state todos[1])"),
    ("= expression", "a Lua expression's value; `state` is the state, read-only"),
    (":screens", "the stacks and presented screens, by address (path#2 save sends to one)"),
    (":log", "the actions of the session, numbered; ← marks those effects sent back"),
    (":goto N", "the state as it was after action N of :log (0: the start)"),
    (":undo [N]", "back one change (or N), past failed actions (effects running are cancelled)"),
    (":redo [N]", "forward one change (or N), after :undo or :goto"),
    (":replay", "runs the session again through the code loaded now, and shows what differs"),
    (":save FILE", "writes the session (composable replay FILE runs it again)"),
    (":test FILE", "writes the session as a test: NAME_test.lua (Lua) or NAME.swift (Swift)"),
    (":effects", "the effects running, numbered"),
    (":cancel N", "cancels effect N"),
    (":env", "the feature's env"),
    (":pause", "stops time: timers and debounces wait"),
    (":resume", "lets time run again"),
    (":advance SECONDS", "moves stopped time forward, waking what is due in order"),
    (":reload", "loads the feature's file again, keeping the state"),
    (":help", "this list"),
    (":quit", "leaves (also :q and Ctrl-D)"),
  ]

  /// The commands that take no argument.
  static let takingNothing: Set = [
    ":quit", ":q", ":help", ":h", ":screens", ":log", ":replay", ":effects", ":env", ":pause",
    ":resume", ":reload",
  ]

  func command(_ text: String) async -> Reply {
    // A tab or another space after the command is a space too (`:undo<TAB>2` was no command).
    let parts = text.split(maxSplits: 1, whereSeparator: \.isWhitespace).map(String.init)
    let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
    // `:log 5` or `:reload now` did what the bare command does, as if the rest were understood.
    if !argument.isEmpty, Self.takingNothing.contains(parts[0]) {
      printer.error(
        "\(parts[0]) takes nothing after it, and \(argument.debugDescription) is not used. "
          + "To fix, type \(parts[0]) alone (:help lists what each command takes)")
      return .ready
    }
    switch parts[0] {
    case ":quit", ":q": return .quit
    case ":help", ":h":
      let width = Self.commands.map(\.name.count).max() ?? 0
      printer.line(
        Self.commands.map {
          "  " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.help
        }.joined(separator: "\n"))
    case ":state": showState(argument)
    case ":screens": showScreens()
    case ":log": showLog()
    case ":goto": await goto(argument)
    case ":undo": await undo(argument)
    case ":redo": await redo(argument)
    case ":replay": await replay()
    case ":save": await save(argument)
    case ":test": await writeTest(argument)
    case ":effects": await showEffects()
    case ":cancel": await cancel(argument)
    case ":env": printer.line(indentedBlock(env.pretty()))
    case ":advance": await advance(argument)
    case ":pause":
      clock.pause()
      printer.line(
        "  time stopped at \(Seconds.of(clock.now.offset)) s; :advance SECONDS moves it, "
          + ":resume lets it run")
    case ":resume":
      clock.resume()
      printer.line("  time runs")
    case ":reload": await reload()
    default:
      printer.error("\(parts[0]) is no command; :help lists them")
    }
    return .ready
  }

  /// Every stack and presented destination, each under the address that sends to it.
  func showScreens() {
    let places = ReplNavigation.places(in: feature)
    guard !places.isEmpty else {
      let names = ReplNavigation.names(in: feature)
      printer.line(
        names.isEmpty
          ? "  the feature declares no stack or presentation (composable.stack, composable.presents)"
          : "  nothing presented, no stack in the state")
      return
    }
    var lines = places.map { "  " + $0.line }
    let example =
      places.flatMap(\.screens).last.map { "\($0) <action>" }
      ?? places.first { !$0.isStack }.map { "\($0.address) <action>" }
    if let example {
      lines.append(
        "  Send to one by its address: \(ReplNavigation.oneLine(example)) (dismiss closes it)")
    }
    printer.line(lines.joined(separator: "\n"))
  }

  func showState(_ path: String) {
    guard !path.isEmpty else {
      do throws(LuaFeatureError) {
        printer.line(indentedBlock(try feature.state().pretty()))
      } catch {
        printer.error(error.description)
      }
      return
    }
    // A field the state does not have (`:state bookz`): said, with the one it may be.
    if path.isLuaWord, case let .table(table)? = try? feature.state(), table[path] == .nil {
      let near = NearestName.nearest(
        to: path, among: table.entries.keys.compactMap(\.stringValue))
      return printer.line(
        "  nil  (the state has no field \(path)" + (near.map { ": did you mean \($0)?" } ?? "")
          + ")")
    }
    evaluate(
      "state" + (path.hasPrefix("[") ? path : "." + path), input: ":state " + path,
      syntaxHint: "a path is written as in Lua: todos[1].title, or [\"a key\"] for a key "
        + "that is not a word", indented: true)
  }

  func showLog() {
    let actions = timeline.actions
    guard !actions.isEmpty else { return printer.line("  no actions yet") }
    let position = timeline.position
    var lines: [String] = []
    if position == 0 { lines.append("▶ 0 the start") }
    for (index, recorded) in actions.enumerated() {
      let number = index + 1
      let mark = recorded.fromEffect ? "← " : ""
      var line = "\(number == position ? "▶" : " ") \(number) \(mark)\(recorded.action)"
      if recorded.failed { line += "  (failed, rolled back)" }
      if number > position { line += "  (undone)" }
      lines.append(line)
    }
    printer.line(lines.joined(separator: "\n"))
  }

  /// Back to before the last step that changed the state, or the last `count` of them
  /// (`:undo 3`): a step is an action and those it sent at once (`effect.send`), which no run
  /// stops between, and which `:undo` takes back together. Failed actions changed nothing (each
  /// was rolled back): a step of failed actions only is passed over, after the one undone and
  /// before it, so that each `:undo` takes one change back and lands where the change before it
  /// left the state. A step that changed something and ends in a failed action (one it sent) is
  /// undone whole, and landed after. It never passes over a reload whose `migrate` changed the
  /// state (that is a change too), or one after which the code of now makes other states from
  /// the actions before it: `jump` says why it cannot go back past it.
  func undo(_ argument: String) async {
    guard let count = stepCount(argument, for: ":undo", "back") else { return }
    await checkReloads()
    let actions = timeline.actions
    let position = min(timeline.position, actions.count)
    let floor = timeline.lastBoundary?.position ?? 0
    var target = position
    var passedOver = 0
    var taken = 0
    while taken < count, let back = stepBack(from: target, floor: floor, in: actions) {
      (target, taken) = (back.target, taken + 1)
      passedOver += back.passedOver
    }
    guard taken > 0 else {
      if position == 0 { return printer.line("  nothing to undo") }
      if floor > 0 { return await jump(to: floor - 1, by: .undo) }  // says why not
      return printer.line("  nothing to undo: every action so far failed, changing nothing")
    }
    var note: String?
    if taken < count {
      let why =
        floor > 0 && target == floor
        ? jumpRefusal(to: floor - 1, by: .undo) ?? "" : "no change before it to undo"
      note = "  (\(taken) of the \(argument.isEmpty ? "1" : argument) steps asked: \(why))"
    }
    await jump(to: target, by: .undo, passedOver: passedOver, note: note)
  }

  /// One step back from after action `position`, not past `floor`: where the last step that
  /// changed something starts, with the steps of failed actions only before it passed over too,
  /// and how many failed actions were passed over (those of the step undone are undone with it);
  /// nil when no step between `floor` and `position` changed anything.
  func stepBack(
    from position: Int, floor: Int, in actions: [RecordedAction]
  ) -> (target: Int, passedOver: Int)? {
    var end = position
    var start: Int?
    while end > floor {
      let begin = max(floor, stepStart(endingAt: end, in: actions))
      if stepChanged(actions[begin..<end]) {
        start = begin
        break
      }
      end = begin
    }
    guard let start else { return nil }
    var target = start
    while target > floor {
      let begin = max(floor, stepStart(endingAt: target, in: actions))
      if stepChanged(actions[begin..<target]) { break }
      target = begin
    }
    let passedOver =
      actions[target..<start].filter(\.failed).count
      + actions[end..<position].filter(\.failed).count
    return (target, passedOver)
  }

  /// The number of steps `:undo` or `:redo` was given: one when none, nil (said) when it is not a
  /// whole number from 1 on: `:undo x` went back one step without a word.
  func stepCount(_ argument: String, for command: String, _ direction: String) -> Int? {
    if argument.isEmpty { return 1 }
    if let count = Int(argument), count > 0 { return count }
    // More steps than an Int holds: as many as there are, as any count past them.
    let digits = argument.drop { $0 == "+" }
    if argument.first != "-", !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
      digits.contains(where: { $0 != "0" })
    {
      return .max
    }
    printer.error(
      "\(command) takes how many steps to go \(direction), 1 or more (\(command) 3), or nothing "
        + "for one; \(argument.debugDescription) is not that")
    return nil
  }

  /// Where the step that ends after action `place` starts: the action before the first of it.
  func stepStart(endingAt place: Int, in actions: [RecordedAction]) -> Int {
    var start = place - 1
    while start > 0, actions[start].sentAtOnce { start -= 1 }
    return start
  }

  /// Whether a step (its actions) changed anything: one of its actions did not fail.
  func stepChanged(_ step: ArraySlice<RecordedAction>) -> Bool {
    step.contains { !$0.failed }
  }

  /// Where time travel may stop at or after action `number`: past the actions sent at once by
  /// the ones before (`RecordedAction.sentAtOnce`), which no run stops before.
  func stoppingPlace(atOrAfter number: Int, in actions: [RecordedAction]) -> Int {
    var place = number
    while place < actions.count, actions[place].sentAtOnce { place += 1 }
    return place
  }

  /// Forward to after the next step that changes the state, or the next `count` of them
  /// (`:redo 3`), passing over steps of failed actions only before it (which changed nothing), as
  /// `:undo` passed over them. With only failed actions ahead there is nothing to redo, as there
  /// is nothing to undo with only failed actions behind: landing on the last of them would change
  /// nothing, and the next `:undo` would go back past the change this `:redo` started from.
  func redo(_ argument: String) async {
    guard let count = stepCount(argument, for: ":redo", "forward") else { return }
    let actions = timeline.actions
    let position = timeline.position
    guard position < actions.count else { return printer.line("  nothing to redo") }
    var target = position
    var passedOver = 0
    var taken = 0
    while taken < count, let forward = stepForward(from: target, in: actions) {
      (target, taken) = (forward.target, taken + 1)
      passedOver += forward.passedOver
    }
    guard taken > 0 else {
      return printer.line("  nothing to redo: every action ahead failed, changing nothing")
    }
    let asked = argument.isEmpty ? "1" : argument
    let note = taken < count ? "  (\(taken) of the \(asked) steps asked: no change after it)" : nil
    await jump(to: target, by: .redo, passedOver: passedOver, note: note)
  }

  /// One step forward from after action `position`: the end of the next step that changed
  /// something, and how many failed actions were passed over before it; nil when none ahead did.
  func stepForward(
    from position: Int, in actions: [RecordedAction]
  ) -> (target: Int, passedOver: Int)? {
    var start = position
    while start < actions.count {
      let end = stoppingPlace(atOrAfter: start + 1, in: actions)
      if stepChanged(actions[start..<end]) {
        return (end, actions[position..<start].filter(\.failed).count)
      }
      start = end
    }
    return nil
  }

  func goto(_ argument: String) async {
    let count = timeline.count
    guard let number = Int(argument), (0...count).contains(number) else {
      return printer.error(
        ":goto takes an action's number from :log, 0 to \(count) (:goto 0 is the start)")
    }
    let actions = timeline.actions
    let place = stoppingPlace(atOrAfter: number, in: actions)
    guard place == number else {
      // Refused, it says so of the action asked for, not of the end of its step.
      if number < timeline.lastBoundary?.position ?? 0 { await checkReloads() }
      if let refusal = jumpRefusal(to: number, by: .goto) { return printer.error(refusal) }
      let sent =
        place - number == 1
        ? "it was sent at once with effect.send, and no run stops before it"
        : "actions \(number + 1) to \(place) were sent at once with effect.send, and no run "
          + "stops before them"
      return await jump(to: place, by: .goto, note: "  (on to action \(place): \(sent))")
    }
    await jump(to: number, by: .goto)
  }

  /// The command that asked for a jump, for what it says.
  enum JumpCommand { case goto, undo, redo }

  /// Makes sure time travel, `:save` and `:test` know which reloads they may cross: those not
  /// checked yet are checked (`ReplAction.checkReloads`).
  func checkReloads() async {
    if timeline.hasReloadToCheck { await store.send(.checkReloads) }
  }

  /// Why the session cannot jump to after action `number` by `command`, or nil when it can: a
  /// reload's `migrate` changed the state after a later action, or the code of now makes other
  /// states than those shown before a later reload, and the states before it were made by code
  /// the session no longer has.
  func jumpRefusal(to number: Int, by command: JumpCommand) -> String? {
    guard let boundary = timeline.lastBoundary, number < boundary.position else { return nil }
    let at = boundary.position
    let why: String
    let replay: String
    switch boundary.kind {
    case .migration:
      why =
        "a reload's migrate changed the state after action \(at), and the states before that "
        + "were made by code the session no longer has (the code of now cannot make them again)"
      replay = ""
    case .reload:
      let differs = boundary.difference.map { "; replayed through it, \($0) differs" }
      why =
        "the code was reloaded after action \(at), and the code of now makes other states from "
        + "the actions before it than those shown\(differs ?? "")"
      replay = ":replay first (it runs the whole session through the code of now)"
    }
    switch command {
    case .undo:
      return ":undo cannot go back past action \(at): \(why)"
        + (replay.isEmpty ? "" : ". To fix, \(replay)")
    case .goto, .redo:
      let target = number == 0 ? "the start" : "action \(number)"
      return ":goto cannot go to \(target): \(why). To fix, :goto \(at) or a later action"
        + (replay.isEmpty ? "" : ", or \(replay)")
    }
  }

  /// Puts the state where it was after action `number`, cancelling the effects in flight first
  /// (their answers belong to a time that is gone); saves of the state are left to finish.
  /// `passedOver` failed actions were stepped over on the way (`:undo`, `:redo`): said so.
  func jump(
    to number: Int, by command: JumpCommand, passedOver: Int = 0, note: String? = nil
  ) async {
    if number < timeline.lastBoundary?.position ?? 0 { await checkReloads() }
    if let refusal = jumpRefusal(to: number, by: command) { return printer.error(refusal) }
    var lines = await cancelEffectsInFlight().map { "  cancelled \($0)" }
    let before = snapshot.value
    // Actions undone before a reload or a :replay, run again on the way: what was counted from
    // their records (steps, failed actions passed over) may no longer be so, and they say how
    // they went now.
    let redoesStale = timeline.staleActionsAfter.map { number > $0 } ?? false
    let target = number
    let from = timeline.position
    await store.send(.jump(to: number))
    await settle()
    // Where it landed: a redo over actions the code of now answers otherwise may end sooner.
    let number = timeline.position
    lines.append(
      number == 0
        ? "  at the start"
        : "  after \(number) of \(timeline.count): \(timeline.action(number)?.action ?? .nil)")
    let counted = number == target && !redoesStale
    if let note, counted { lines.append(note) }
    if passedOver > 0, counted {
      let actions = passedOver == 1 ? "1 failed action" : "\(passedOver) failed actions"
      lines.append("  (past \(actions), which changed nothing)")
    }
    if let difference = LuaValue.notationDifference(
      from: before, to: snapshot.value, colored: printer.colored)
    {
      lines.append(printer.indented(difference))
    }
    lines += navigation.changes(in: feature).map { "  ▸ " + $0 }
    if number > from, let note = Self.effectsNotRun(timeline.actions[from..<number], from: from) {
      lines.append(note)
    }
    // A feature that persists saves the state it is at: a jump back, then :q, saved it over the
    // later one without a word (a new user's finding).
    // Its saves may go beside its file (another writer changed it): named where they go.
    // Only when what is saved changed: an :undo of a screen popped, with `persist{ select =
    // "books" }`, said it of books it left as they were (a new user's finding).
    let selected = feature.persistence?.select.map { LuaValue($0) }
    func savedPart(_ state: LuaValue) -> LuaValue {
      selected.map { state.tableValue?[$0] ?? .nil } ?? state
    }
    if let saved = feature.stateSavedAside ?? feature.persistence?.path, number < timeline.count,
      savedPart(before) != savedPart(snapshot.value)
    {
      lines.append(
        "  (\(saved) is saved from this state now, over the later ones; :goto \(timeline.count) "
          + "is the latest)")
    }
    printer.line(lines.joined(separator: "\n"))
  }

  /// Going forward over actions replays their changes, not their effects: a `:redo` of a
  /// toggle left its debounced sort unstarted, where sending it starts it, without a word (an
  /// attacker's finding). Names the effects of the actions gone over that are not running now:
  /// a timer (`effect.every`) always (it would go on ticking), one that ends once it has sent
  /// when no action an effect sent came after it in the span (one did: what it sent may be
  /// that, replayed; said so, "send again" would apply it twice), never a send (reduced at once,
  /// replayed with its action) or a cancel. Each by the effect inside the cancellables around
  /// it, with the innermost id of its own (not a composition's scope).
  static func effectsNotRun(_ actions: ArraySlice<RecordedAction>, from: Int) -> String? {
    var named: [String] = []
    // Whether an action an effect sent comes after each one in the span: one pass from the end
    // (a scan after each was quadratic, 50 ms a jump over 10,000 actions).
    var sentAfter = [Bool](repeating: false, count: actions.count)
    var seen = false
    for (offset, action) in actions.enumerated().reversed() {
      sentAfter[offset] = seen
      seen = seen || action.fromEffect
    }
    for (offset, action) in actions.enumerated() {
      guard action.effect != .nil,
        case var .table(effect) = RecordedAction.plainEffect(action.effect)
      else { continue }
      var id = LuaValue.nil
      func keep(_ candidate: LuaValue) {
        // A composition's scope (`{ scope = ... }`) names no effect a reader wrote.
        if candidate != .nil, candidate.tableValue?["scope"] == nil { id = candidate }
      }
      keep(effect["id"])
      while effect["kind"] == "cancellable", case let .table(inner) = effect["effect"] {
        effect = inner
        keep(effect["id"])
      }
      guard let kind = effect["kind"].stringValue, !["cancel", "send"].contains(kind) else {
        continue
      }
      if kind != "every", sentAfter[offset] { continue }
      let idText = id == .nil ? "" : " id \(id.description(limit: 40))"
      named.append("action \(from + offset + 1)'s effect.\(kind)\(idText)")
    }
    guard !named.isEmpty else { return nil }
    let shown = named.prefix(3).joined(separator: ", ")
    let more = named.count > 3 ? " and \(named.count - 3) more" : ""
    return "  (the effects of the actions gone over are not running now: \(shown)\(more); send "
      + "an action again to start one)"
  }

  /// Runs the session's actions again from its initial state through the code loaded now.
  func replay() async {
    guard timeline.position > 0 else { return printer.line("  no actions to replay") }
    if let migration = timeline.lastMigration?.position, migration > 0 {
      return printer.error(
        ":replay runs the session from its start, and a reload's migrate changed the state after "
          + "action \(migration): the actions before it ran on code the session no longer has. "
          + "To fix, :save the session (it starts there) and replay that")
    }
    let cancelled = await cancelEffectsInFlight()
    if !cancelled.isEmpty {
      printer.line(cancelled.map { "  cancelled \($0)" }.joined(separator: "\n"))
    }
    await store.send(.replay)
    await settle()
  }

  /// Cancels the effects running but saves of the state; what was cancelled, as `:effects`
  /// names them.
  func cancelEffectsInFlight() async -> [String] {
    var cancelled: [String] = []
    var numbers: [Int] = []
    for effect in await store.runningEffects where !effect.isStateSave {
      if await store.cancelEffect(number: effect.number) {
        cancelled.append("#\(effect.number) \(describe(effect))")
        numbers.append(effect.number)
      }
    }
    for number in numbers { await waitForEnd(ofEffect: number) }
    return cancelled
  }

  /// Says which effects (saves aside) are still running as the session ends, which stop with
  /// it: a piped session ends the moment its input does, and an effect's action that never
  /// came was dropped without a word.
  public func sayEffectsStoppingAtTheEnd() async {
    let running = await store.runningEffects.filter { !$0.isStateSave }
    guard !running.isEmpty else { return }
    // A timer (`effect.every`) never finishes: advancing time only ticks it on.
    let finishing = running.filter { $0.kind != "every" }.count
    let advance =
      clock.isPaused
      ? ":advance SECONDS" : ":pause and :advance SECONDS (or start with --paused)"
    let advice =
      finishing == 0
      ? (running.count == 1 ? "It repeats" : "They repeat") + " until cancelled"
      : finishing == running.count
        ? "To let \(running.count == 1 ? "it" : "them") finish first, end with \(advance)"
        : "To let those that end finish first, end with \(advance) (effect.every repeats until "
          + "cancelled)"
    printer.line(
      "  note: the session ends with \(running.count) effect"
        + (running.count == 1 ? "" : "s") + " still running, which stop"
        + (running.count == 1 ? "s" : "") + " with it: "
        + running.map { "#\($0.number) " + describe($0) }.joined(separator: ", ")
        + ". " + advice)
  }

  func showEffects() async {
    let running = await store.runningEffects
    guard !running.isEmpty else { return printer.line("  no effects running") }
    printer.line(running.map { "  #\($0.number) " + describe($0) }.joined(separator: "\n"))
  }

  /// `effect.debounce id sort`: an effect's kind and id, as `:effects` lists it.
  func describe(_ effect: RunningEffectSummary) -> String {
    var text = effectKindName(effect.kind, prefix: "effect.") ?? "effect"
    if let id = effect.ids.last { text += " id \(id)" }
    return text
  }

  func cancel(_ argument: String) async {
    guard let number = Int(argument.drop { $0 == "#" }) else {
      return printer.error(":cancel takes the number :effects shows (:cancel 3)")
    }
    let what = await store.runningEffects.first { $0.number == number }.map(describe)
    if await store.cancelEffect(number: number) {
      await waitForEnd(ofEffect: number)
      printer.line("  cancelled #\(number)" + (what.map { " " + $0 } ?? ""))
      timeline.noteCancelledByHand(what ?? "effect #\(number)")
    } else {
      printer.error("no effect #\(number) is running; :effects lists them")
    }
  }

  /// Waits (a second at most) until the effect numbered `number`, cancelled, has ended: until
  /// its task ends, the store lists it, and `:effects` on the next line showed it running.
  func waitForEnd(ofEffect number: Int) async {
    let deadline = ContinuousClock.now + .seconds(1)
    while await store.runningEffects.contains(where: { $0.number == number }) {
      await settle()
      guard ContinuousClock.now < deadline else { return }
      try? await Task.sleep(for: .milliseconds(1))
    }
  }

  func advance(_ argument: String) async {
    guard let seconds = Double(argument), let duration = Seconds.duration(seconds) else {
      return printer.error(":advance takes \(Seconds.expected) (:advance 0.5)")
    }
    // On the session's thread (see `handle`), so each wake-up's work (the action it sends, the
    // effects that starts, the next sleep) has all run before the next sleeper is woken.
    let limit = advanceTimeLimit
    switch await clock.advance(by: duration, stoppingAt: .now + limit) {
    case .running:
      return printer.error("time runs by itself; :pause it first (or start with --paused)")
    case let .stopped(after: moved):
      await settle()
      printer.error(
        ":advance stopped after \(limit) of real time, \(Seconds.of(moved)) s of the "
          + "\(Seconds.of(duration)) s asked (a timer fires that often); :advance again to go on")
    case .done:
      await settle()
    }
  }

  /// Loads the feature's file again and swaps the new code in, keeping the state; broken code
  /// is refused and the old code keeps running. (Hot reload calls it on each save.)
  @discardableResult
  /// `changed`: the files whose save set it off (named in the report when one is a module).
  /// `ifCodeChanged` (a watcher's save): nothing is done when the files hold the code running
  /// (`LuaFeature.holdsLoadedCode`), asked on the session's thread, after any `:reload` typed
  /// before (a late event for an edit `:reload` took reloaded it twice, `migrate` too).
  public nonisolated func reload(changed: [String] = [], ifCodeChanged: Bool = false) async -> Bool
  {
    await executor.run {
      await self.reloadOnSessionThread(changed: changed, ifCodeChanged: ifCodeChanged)
    }
  }

  private func reloadOnSessionThread(changed: [String], ifCodeChanged: Bool) async -> Bool {
    if ifCodeChanged, feature.holdsLoadedCode(file) { return false }
    let printer = self.printer
    let outcome = HotReload.reload(
      feature, from: file, changed: changed, report: { printer.line($0) },
      fail: { printer.error($0) })
    if outcome == .refused { failures.noteReload() }
    let reloaded = outcome == .reloaded
    if reloaded { await store.send(.reloaded) }  // what `migrate` changed, and where
    if reloaded, replaysOnReload { await replay() }
    return reloaded
  }

  func indentedBlock(_ text: String) -> String { printer.indented(text) }
}
