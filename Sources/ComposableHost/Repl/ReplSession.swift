import Composable
import ComposableLua
import Foundation
import LuaKit

/// A REPL on a feature, without the terminal: lines in, text out. The terminal (line editing,
/// history, completion) is the caller's; everything a line does is here, so it is tested as
/// it is.
///
/// A line is an action (`increment`, `{ type = "add", title = "milk" }`), `= expression`, or a
/// command (`:help` lists them). An action or expression left open (a table not closed yet)
/// continues on the next line, as `lua5.4` reads it.
public actor ReplSession {
  /// What the caller does after a line.
  public enum Reply: Equatable, Sendable {
    /// Ready for the next line (prompt `> `).
    case ready
    /// The input so far is incomplete: read another line (prompt `.. `).
    case needsMore
    /// The person asked to leave (`:quit`, `:q`): end the loop.
    case quit
  }

  /// The feature the session runs; its state lives in the feature's Lua VM.
  public nonisolated let feature: LuaFeature
  /// The feature's file: what `:reload` and hot reload load again.
  public let file: URL
  let env: LuaValue
  /// The store's dependencies (its clock the REPL's, its env answers on the tape).
  let dependencies: DependencyValues
  /// Holds a handle: the state stays in Lua, and is read (`snapshot`) when a step needs it.
  let store: Store<LuaFeatureHandle, ReplAction>
  /// Every action of the session, where the state stands among them, and checkpoints.
  public nonisolated let timeline: SessionTimeline
  /// What failed so far: actions, effects, refused reloads (for a host's exit status).
  public nonisolated let failures: SessionFailures
  /// What `env` answered each action's reducer: recorded, and played back by jumps and replays.
  /// What it answered effects goes to the timeline, for `:test`.
  let tape = LuaEnvironmentTape()
  /// The HTTP requests and file operations effects made, with their answers (for `:test`).
  public nonisolated let exchanges = ExchangeLog()
  /// Whether each reload is followed by a replay of the session (`--replay`).
  public let replaysOnReload: Bool
  /// The most real time one `:advance` takes before it stops and gives the prompt back (10 s by
  /// default): over a timer of a millisecond, `:advance 1000` is a million wake-ups.
  public let advanceTimeLimit: Duration
  let printer: ReplPrinter
  let reader: LuaLiteralReader
  /// The store's clock: real time until `:pause` (or `--paused`), then moved by `:advance`.
  public let clock: ReplClock
  /// The one thread the store's effects run on, so that `:advance` (and `settle`) can tell
  /// when everything a wake-up started has run: its queue is empty.
  nonisolated let executor = SingleThreadExecutor()
  let known: KnownTypesBox
  /// The state as last read, read again when needed after an action wrote; shared with the
  /// reducer.
  let snapshot: StateSnapshot
  /// Where the session is in the feature's stacks and presentations.
  nonisolated let navigation = ReplNavigation()
  private var pending: [[UInt8]] = []
  /// What the pending lines leave open, read as they come.
  private var pendingScan = LuaInputScanner()
  /// The most bytes an input may grow to while it is still open (a paste without its closing
  /// brace): it is then dropped, with an error, and the REPL goes on.
  static let maximumOpenInput = 16 << 20

  /// `dependencies` are the store's, but for its clock, which is `clock`. `actionGate`, when
  /// given, is held while each action is reduced and shown (a host's signal handler takes it
  /// before it saves and ends the process). `dataDirectory`, when given, is where the files are
  /// (a save that went beside its file names the folder: the file's name alone is relative).
  ///
  /// ```swift
  /// let file = URL(fileURLWithPath: "features/counter.lua")
  /// let feature = try LuaFeature(contentsOf: file)
  /// let session = try ReplSession(
  ///   feature: feature, file: file, env: [:], dependencies: .live, clock: ReplClock(paused: true)
  /// ) { text in print(text) }
  /// while let line = readLine() {
  ///   if await session.handle(line) == .quit { break }
  /// }
  /// ```
  public init(
    feature: LuaFeature, file: URL, env: LuaValue, dependencies: DependencyValues,
    clock: ReplClock = ReplClock(), colored: Bool = false, replaysOnReload: Bool = false,
    advanceTimeLimit: Duration = .seconds(10), actionGate: NSLock? = nil,
    dataDirectory: URL? = nil, write: @escaping @Sendable (String) -> Void
  ) throws {
    self.feature = feature
    self.replaysOnReload = replaysOnReload
    self.advanceTimeLimit = advanceTimeLimit
    self.file = file
    self.env = env
    self.clock = clock
    reader = LuaLiteralReader()
    let failures = SessionFailures()
    self.failures = failures
    let known = KnownTypesBox(ScannedActionTypes(file: file, modules: feature.moduleFiles))
    self.known = known
    let printer = ReplPrinter(
      colored: colored, knownTypes: { known.value }, noteSeen: { known.insert($0) },
      write: write)
    self.printer = printer
    var dependencies = exchanges.recording(dependencies, clock: clock)
    dependencies.clock = clock
    dependencies.environmentTape = tape
    self.dependencies = dependencies
    let snapshot = try StateSnapshot(feature: feature)
    self.snapshot = snapshot
    navigation.reset(to: feature)
    let timeline = SessionTimeline(
      initialState: snapshot.value, generators: dependencies.generatorPositions)
    self.timeline = timeline
    clock.noteSleepsDueNow { timeline.noteSleepDueNow() }
    timeline.branchObserver = { [exchanges] in
      exchanges.dropBranch(after: $0, from: $1, at: $2, until: $3)
    }
    timeline.requestsBegunNow = { [exchanges] in exchanges.begun }
    tape.noteEffectDraws { draw, startedBy in
      guard let startedBy else { return }
      timeline.noteEffectDraw(draw, startedBy: startedBy, time: Seconds.of(clock.now.offset))
    }
    let base = LuaFeatureReducer<LuaFeatureHandle>(
      feature: feature, dependencies: dependencies,
      onError: { error in
        // A save of the state that failed is a save, not an effect: said as one, and counted
        // for the status (1), where it was "an effect of saving the state failed" and 2.
        if let reason = error.stateSaveReason {
          failures.noteSave()
          printer.error(
            (error.isStateSavedAside
              ? "the state was saved beside its file"
                + (dataDirectory.map { " in the data directory \($0.path)" } ?? "") + ": "
              : "the state could not be saved: ") + reason)
          return
        }
        // A reducer's error comes back with its action (`LuaStepOutcome.error`), printed with
        // it; an effect's comes on its own, later.
        if case let .effect(_, luaError) = error {
          failures.noteEffect()
          printer.error(error.description)
          timeline.noteEffectFailure(
            SessionTestPlan.expectedMessage("\(luaError)"), time: Seconds.of(clock.now.offset))
        }
      })
    store = Store(
      initialState: LuaFeatureHandle(feature: feature),
      reducer: ReplReducer(
        feature: feature, base: base, timeline: timeline,
        replayer: SessionReplayer(
          feature: feature, dependencies: SessionReplayer.replaying(dependencies), tape: tape),
        storeDependencies: dependencies,
        clock: clock, printer: printer, snapshot: snapshot, navigation: navigation,
        failures: failures, actionGate: actionGate),
      effectExecutor: dependencies.effectExecutor ?? executor)
  }

  deinit { executor.stop() }

  /// The prompt for the next line.
  public var prompt: String { pending.isEmpty ? "> " : ".. " }

  /// The action types known so far (for completion).
  public var knownTypes: KnownActionTypes { known.value }

  /// Handles a line typed as text: `handle(bytes:)` of its UTF-8 bytes. Says what to do next.
  public nonisolated func handle(_ line: String) async -> Reply {
    await handle(bytes: Array(line.utf8))
  }

  /// Handles a line given as its bytes, exactly as they came (what is not UTF-8 included): an
  /// action or an expression reaches Lua as typed.
  ///
  /// On the session's thread (`executor`), as everything that reaches the store is: the store
  /// then runs there too, never on a thread of the global pool while an effect waits for it,
  /// so an empty queue on that thread means the work has all run (`:advance`, `settle`).
  public nonisolated func handle(bytes line: [UInt8]) async -> Reply {
    await executor.run { await self.handleOnSessionThread(bytes: line) }
  }

  /// The errors printed and the failures counted so far.
  private func noted() -> (errors: Int, failures: Int) {
    let counts = failures.counts
    let counted = counts.actions + counts.effects + counts.reloads + counts.lines + counts.saves
    return (printer.errorsPrinted, counted)
  }

  /// Counts a command or an expression that printed an error of its own since `before` (one
  /// printed for an action, an effect or a reload that ran meanwhile is counted as that).
  private func noteCommandFailure(since before: (errors: Int, failures: Int)) {
    let now = noted()
    if now.errors - before.errors > now.failures - before.failures { failures.noteCommand() }
  }

  private func handleOnSessionThread(bytes line: [UInt8]) async -> Reply {
    let text = line.trimmingSpacesAndTabs
    if pending.isEmpty {
      if text.isEmpty { return .ready }
      if text.first == UInt8(ascii: ":") {
        let before = noted()
        let reply = await command(String(decoding: text, as: UTF8.self))
        noteCommandFailure(since: before)
        return reply
      }
    }
    pending.append(line)
    pendingScan.read(line)
    if pendingScan.leavesSomethingOpen {
      guard pendingScan.count > Self.maximumOpenInput else { return .needsMore }
      printer.error(
        "the input grew past \(Self.maximumOpenInput >> 20) MiB with a bracket, a string or a "
          + "comment still open, and was dropped. To fix, close what is open, or load a large "
          + "value from a file")
      pending = []
      pendingScan = LuaInputScanner()
      return .ready
    }
    let input = Array(pending.joined(separator: [UInt8(ascii: "\n")]))
    let trimmed = input.trimmingLuaSpace
    let isExpression = trimmed.first == UInt8(ascii: "=")
    let body = Array(isExpression ? trimmed.dropFirst() : trimmed)
    let isWord = String(validating: body, as: UTF8.self)?.isLuaWord ?? false
    if !isWord, reader.isIncomplete(body) { return .needsMore }
    pending = []
    pendingScan = LuaInputScanner()
    if isExpression {
      let before = noted()
      evaluate(body)
      noteCommandFailure(since: before)
    } else {
      await send(body)
    }
    return .ready
  }

  /// The input ended (Ctrl-D, or the end of a pipe). An action still open then (a bracket, a
  /// string or a comment not closed) is not run: it is said, and counted as a line that was
  /// not an action, where it was dropped without a word. Whether there was one.
  @discardableResult
  public nonisolated func endOfInput() async -> Bool {
    await executor.run { await self.endOfInputOnSessionThread() }
  }

  private func endOfInputOnSessionThread() -> Bool {
    guard !pending.isEmpty else { return false }
    let first = String(decoding: pending[0].trimmingSpacesAndTabs, as: UTF8.self)
    let more = pending.count > 1 ? " (and \(pending.count - 1) more lines)" : ""
    printer.error(
      "the input ended with an action still open (a bracket, a string or a comment not "
        + "closed), so it was not run: \(LuaText.capped(first, limit: 80))\(more). To fix, "
        + "close what is open")
    failures.noteLine()
    pending = []
    pendingScan = LuaInputScanner()
    return true
  }

  /// Sends a typed action; what it did is printed as it is reduced.
  func send(_ line: [UInt8]) async {
    let action: LuaValue
    // Read in the feature's VM: a line may use the state (`{ type = "open", id =
    // state.items[1].id }`), read-only, and env, as an `=` expression does.
    let feature = self.feature
    do {
      action = try ReplNavigation.action(from: line, of: feature) { typed in
        try LuaAction.normalize(
          reader.action(from: typed) {
            try feature.evaluate(bytes: $0, name: "input").first ?? .nil
          })
      }
    } catch {
      // A line that looks like an address but is none is said so, rather than Lua's syntax
      // error (an `AddressProblem`).
      printer.error((error as? LuaAction.Malformed)?.message ?? "\(error)")
      failures.noteLine()
      return
    }
    await store.send(.typed(action))
    // What the action started runs as far as it can before the next line is read, as a test's
    // store lets it: an effect.run coroutine sending three actions in a row sends them all
    // before a line typed after it (the session recorded one between them one time in five,
    // which no test can do). Bounded: an effect that never suspends keeps the session going.
    await SingleThreadExecutor.current?.settle(within: .seconds(1))
  }

  /// `= expression`: its values, laid out as Lua.
  /// `input` names it in an error (`= state.x.y`, `:state x.y`): the line as typed, cut.
  /// `syntaxHint` is said after a syntax error (`:state`'s path syntax). `indented`: the values
  /// are shown as `:state` shows the whole state, two spaces in (`:state PATH`).
  func evaluate(
    _ expression: [UInt8], input: String? = nil, syntaxHint: String? = nil,
    indented: Bool = false
  ) {
    let text = String(decoding: expression, as: UTF8.self)
    let typed = input ?? "= " + text.trimmingCharacters(in: .whitespaces)
    var name = String(typed.prefix { $0 != "\n" && $0 != "\r" })
    if name.count > 50 || name.count < typed.count { name = String(name.prefix(50)) + "…" }
    do throws(LuaError) {
      let shown = try feature.evaluateShown(bytes: expression, name: name)
      let text = shown.joined(separator: "\n")
      printer.line(shown.isEmpty ? "  (no value)" : indented ? indentedBlock(text) : text)
    } catch {
      // One line typed: its line number says nothing (after "syntax error: " too).
      var message = error.message
      if !typed.contains("\n"), let place = message.range(of: name + ":1: ") {
        message.replaceSubrange(place, with: name + ": ")
      }
      // `= state.x = 5`: an assignment where a value was asked for.
      if case .syntax = error, message.hasSuffix("<eof> expected near '='") {
        message += " (= shows a value; the state changes only through an action)"
      } else if case .syntax = error, let syntaxHint {
        message += " (\(syntaxHint))"
      }
      printer.error(message)
    }
  }

  func evaluate(
    _ expression: String, input: String? = nil, syntaxHint: String? = nil, indented: Bool = false
  ) {
    evaluate(Array(expression.utf8), input: input, syntaxHint: syntaxHint, indented: indented)
  }

  /// Waits for what the store is doing now (an action sent, effects' actions queued) to be
  /// reduced; for tests and for a host about to exit.
  public nonisolated func settle() async {
    let store = self.store
    await executor.run {
      await SingleThreadExecutor.letWorkRun()
      _ = await store.withIsolation { _ in () }
    }
  }
}

/// The state as last read, read again only when it is asked for after an action wrote: an
/// action costs what it touched (its changes come from its transaction), and a large state is
/// read for a checkpoint, a jump or a replay, not after every action.
final class StateSnapshot: @unchecked Sendable {
  private let lock = NSLock()
  private let feature: LuaFeature
  private var state: LuaValue  // under `lock`
  private var stale = false  // under `lock`

  init(feature: LuaFeature) throws(LuaFeatureError) {
    self.feature = feature
    state = try feature.state()
  }

  /// The state now. Read outside the lock, which the feature's own lock is never taken under;
  /// a state that cannot be read (a table that contains itself) leaves the last one.
  var value: LuaValue {
    get {
      guard lock.withLock({ stale }), let fresh = try? feature.state() else {
        return lock.withLock { state }
      }
      lock.withLock {
        state = fresh
        stale = false
      }
      return fresh
    }
    set {
      lock.withLock {
        state = newValue
        stale = false
      }
    }
  }

  /// An action wrote to the state: the next `value` reads it again.
  func actionWrote() { lock.withLock { stale = true } }
}

/// The known types, shared with the printer (which runs in the store): those the code names
/// now, and those seen this session.
final class KnownTypesBox: @unchecked Sendable {
  private let lock = NSLock()
  private let scanned: ScannedActionTypes
  private var seen: Set<String> = []

  init(_ scanned: ScannedActionTypes) { self.scanned = scanned }

  var value: KnownActionTypes {
    var types = scanned.value
    for type in lock.withLock({ seen }) { types.insert(type) }
    return types
  }

  func insert(_ type: String) { _ = lock.withLock { seen.insert(type) } }
}
