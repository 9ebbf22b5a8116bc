import Composable
import ComposableLua
import Foundation
import LuaKit

/// A recorded session laid out as the steps of a TestStore test: each action sent or received
/// with the state before and after it, and the time advanced between them. The Lua and the
/// Swift test writers both write from it.
///
/// The states come from replaying the session on a fresh load of the feature's code (with the
/// recorded `env` answers), so the test pins what the code does now.
struct SessionTestPlan {
  enum Step {
    case send(LuaValue, before: LuaValue, after: LuaValue)
    case receive(LuaValue, before: LuaValue, after: LuaValue)
    /// Nanoseconds of the test clock.
    case advance(nanoseconds: Int)
    /// An action sent that raised: the test sends it expecting the failure (the first line of
    /// the error), as the session's state was rolled back.
    case sendFailing(number: Int, action: LuaValue, error: String)
    /// An action an effect sent that raised: the test receives it, no change; the failure came
    /// in the calls before it that ran the effects (`failuresExpected`).
    case receiveFailed(number: Int, action: LuaValue, error: String)
    /// An action an effect sent that raised, where no call before it ran effects: left out, said
    /// why.
    case leftOut(number: Int, action: LuaValue, error: String)
    /// A jump in time cancelled every effect running here (`RecordedAction.afterJump`).
    case cancelEffects
    /// `:cancel` ended these effects here (as `:effects` named them): a test cannot, and says so.
    case cancelledByHand([String])

    /// Whether the step sends an action.
    var isSend: Bool {
      switch self {
      case .send, .sendFailing: true
      default: false
      }
    }

    /// Whether the test's store runs effects during the step (a send or an advance: a receive
    /// only takes what they sent).
    var runsEffects: Bool {
      switch self {
      case .send, .sendFailing, .advance: true
      case .receive, .receiveFailed, .leftOut, .cancelEffects, .cancelledByHand: false
      }
    }
  }

  var steps: [Step] = []
  /// Runs of steps (by index in `steps`) during which actions effects send raise, each with the
  /// messages of those failures: the test expects them around the run. A run starts at the send
  /// whose effects sent them, or at the first of the advances since: the test's store reduces
  /// an action `effect.send` sent in the send's own call, where the session's clock, running,
  /// put it a millisecond later.
  var failuresExpected: [(from: Int, through: Int, messages: [String])] = []
  /// What `env` answered the reducers, in order.
  var draws: [LuaEnvironmentTape.Draw] = []
  /// What `env` answered effects' coroutines, in order, by the number of the step whose action
  /// started the effect (the steps' actions sent and received, counted from 1).
  var effectDraws: [Int: [LuaEnvironmentTape.Draw]] = [:]
  var exchanges: [RecordedExchange]
  var initialState: LuaValue
  var env: LuaValue
  var feature: URL
  /// Seconds a feature that persists waits before a save; nil for one that does not.
  var saveDelay: Double?
  /// The file a feature that persists saves to (`persist{ path }`); nil for one that does not.
  var savedPath: String?
  /// Effects (other than saves) still running when the test was written, as `:effects`
  /// names them.
  var inFlight: [String]
  /// Whether actions effects sent come after where the session stood (undone, `:undo`): the
  /// test's store may receive them too (an advance that woke two timers wakes both), and skips
  /// them at its end.
  var undoneReceived = false

  /// `effectDraws` are what `env` answered effects in the session, each with the number of the
  /// recording's action that started the effect (`SessionTimeline.effectDraws`); `wakingNow`,
  /// the recording's actions before which an effect slept until a time already reached (a
  /// `sleep(0)`, which the test clock wakes only at an advance: the test advances by zero there
  /// when it advances by nothing more). A saved session holds neither.
  init(
    recording: SessionRecording, exchanges: [RecordedExchange],
    effectDraws: [(startedBy: Int, draw: LuaEnvironmentTape.Draw)] = [],
    wakingNow: Set<Int> = [], cancelledByHand: [Int: [String]] = [:],
    effectFailures: [Int: [(time: Double, message: String)]] = [:], feature: URL,
    inFlight: [String]
  ) throws {
    self.exchanges = exchanges
    self.initialState = recording.initialState
    self.env = recording.env
    self.feature = feature
    self.inFlight = inFlight
    let replayer = try SessionReplayer.fresh(recording, feature: feature, print: { _ in })
    let loaded = replayer.feature
    saveDelay = loaded.persistence?.debounce
    savedPath = loaded.persistence?.path.description
    var state = recording.initialState
    var clock: Int?
    // The number the test's store gives each recorded action, by the recording's: every action
    // the test sends or receives is reduced and counted, those that raise too.
    var stepOf: [Int: Int] = [:]
    var wakeNow = false  // a sleep due at once waits for the test's next advance
    // Effects' failures since the last action: the test meets them in the calls from the last
    // send through the advance to the next action.
    var failing: [(time: Double, message: String)] = []
    func expectEffectFailures(upTo nanoseconds: Int?) {
      guard let through = steps.lastIndex(where: \.runsEffects) else { return }
      let from = steps[...through].lastIndex(where: \.isSend) ?? through
      for failure in failing
      where nanoseconds.map({ Self.nanoseconds(failure.time, .down) <= $0 }) ?? true {
        expectFailure(failure.message, from: from, through: through)
      }
      failing = []
    }
    for (index, recorded) in recording.actions.enumerated() {
      let outcome = replayer.replay(recorded)
      if recorded.afterJump {
        steps.append(.cancelEffects)
        wakeNow = false  // the cancel ended it
      }
      if wakingNow.contains(index + 1) { wakeNow = true }
      if let what = cancelledByHand[index + 1] { steps.append(.cancelledByHand(what)) }
      failing += effectFailures[index + 1] ?? []
      // An action sent is put at or before the moment it was sent, one received at or after
      // the moment it came: what an effect started does not come earlier than it did.
      // To the nanosecond: a paused session's timers half a millisecond apart kept their order
      // (rounded to milliseconds, two came at once and the test ran them the other way; to
      // microseconds, timers 0.4 and 0.9 µs after an action did).
      let nanoseconds = Self.nanoseconds(recorded.time, recorded.fromEffect ? .up : .down)
      if let now = clock, nanoseconds > now {
        steps.append(.advance(nanoseconds: nanoseconds - now))
      } else if wakeNow {
        steps.append(.advance(nanoseconds: 0))
      }
      wakeNow = false
      clock = max(clock ?? nanoseconds, nanoseconds)
      if !failing.isEmpty { expectEffectFailures(upTo: nil) }
      if let error = outcome.action.error {
        let number = index + 1
        if !recorded.fromEffect {
          steps.append(.sendFailing(number: number, action: recorded.action, error: error))
        } else if let through = steps.lastIndex(where: \.runsEffects) {
          let from = steps[...through].lastIndex(where: \.isSend) ?? through
          expectFailure(Self.expectedMessage(error), from: from, through: through)
          steps.append(.receiveFailed(number: number, action: recorded.action, error: error))
        } else {
          steps.append(.leftOut(number: number, action: recorded.action, error: error))
          continue  // not in the test: not reduced there
        }
        stepOf[number] = stepOf.count + 1
        draws += outcome.action.draws
        continue
      }
      stepOf[index + 1] = stepOf.count + 1
      draws += outcome.action.draws
      let after = try loaded.state()
      steps.append(
        recorded.fromEffect
          ? .receive(recorded.action, before: state, after: after)
          : .send(recorded.action, before: state, after: after))
      state = after
    }
    if let what = cancelledByHand[recording.actions.count + 1] {
      steps.append(.cancelledByHand(what))
    }
    // Those after the last action, if the test's time comes to them (it goes no further): at
    // its time, or within 50 ms of it (at once, in a session whose clock runs).
    failing += effectFailures[recording.actions.count + 1] ?? []
    if !failing.isEmpty { expectEffectFailures(upTo: (clock ?? 0) + 50_000_000) }
    for (startedBy, draw) in effectDraws {
      guard let step = stepOf[startedBy] else { continue }
      self.effectDraws[step, default: []].append(draw)
    }
  }

  /// Expects a failure with `message` around the steps `from...through`, joining the run of
  /// steps before when they meet.
  private mutating func expectFailure(_ message: String, from: Int, through: Int) {
    if var last = failuresExpected.last, last.through >= from {
      last.through = max(last.through, through)
      if !last.messages.contains(message) { last.messages.append(message) }
      failuresExpected[failuresExpected.count - 1] = last
    } else {
      failuresExpected.append((from, through, [message]))
    }
  }

  /// `text` cut at each address (`0x55d0c8a4e2a0`, as Lua shows a table or a function), which
  /// differs from run to run: the pieces between, and nil for each address.
  static func splittingAddresses(_ text: String) -> [String?] {
    var pieces: [String?] = []
    var rest = Substring(text)
    while let match = rest.firstMatch(of: #/0x[0-9a-fA-F]{4,16}/#) {
      if match.range.lowerBound > rest.startIndex {
        pieces.append(String(rest[..<match.range.lowerBound]))
      }
      pieces.append(nil)
      rest = rest[match.range.upperBound...]
    }
    if !rest.isEmpty || pieces.isEmpty { pieces.append(String(rest)) }
    return pieces
  }

  /// The first line of an error.
  static func firstLine(_ error: String) -> String {
    error.unicodeScalars.split(separator: "\n").first.map(String.init) ?? ""
  }

  /// What a test expects the message of an action's failure to hold: the error's first line,
  /// without the position Lua puts before it (`todos.lua:26: `), so that an edit above that
  /// line does not fail the test.
  static func expectedMessage(_ error: String) -> String {
    let line = firstLine(error)
    guard let match = line.firstMatch(of: #/^[^:\n]{1,200}\.lua:[0-9]{1,9}: /#) else { return line }
    return String(line[match.range.upperBound...])
  }

  /// `draws` by function name, each function's answers in order.
  static func answers(_ draws: [LuaEnvironmentTape.Draw]) -> [(name: String, values: [LuaValue])] {
    Set(draws.map(\.name)).sorted().map { name in
      (name, draws.filter { $0.name == name }.map(\.value))
    }
  }

  /// Nanoseconds as Lua and Swift write seconds: `1`, `0.25`, `1.001`, `0.0000004`.
  static func seconds(_ nanoseconds: Int) -> String {
    let (whole, part) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
    var text = "\(whole)." + String(format: "%09ld", part)  // exact: no float between
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
  }

  /// `seconds` in whole nanoseconds, rounded `way`, but to the nearest where it is within a
  /// thousandth of one: 0.3 s is 299999999.99999994 ns as a double, and is 300000000.
  static func nanoseconds(_ seconds: Double, _ way: FloatingPointRoundingRule) -> Int {
    let exact = seconds * 1_000_000_000
    let nearest = exact.rounded()
    guard nearest.isFinite, abs(nearest) < 1e18 else { return exact > 0 ? Int(1e18) : 0 }
    return Int(abs(exact - nearest) < 1e-3 ? nearest : exact.rounded(way))
  }

  /// The HTTP exchanges in the order their requests were made (`ExchangeLog`'s), with the delay
  /// each took (whole nanoseconds, rounded down: an answer never comes later in the test than it
  /// did; in milliseconds, a local server's answer took none, and the test's effects ran on
  /// past where the session's had when it jumped). A test serves each to the first request not yet answered with the same method,
  /// URL and body: listed in the order they were answered, a slow request made first got the
  /// answer of a fast one made after it (an attacker's finding).
  var httpExchanges: [(exchange: RecordedExchange, delay: Int)] {
    exchanges.filter { $0.kind == .http }.map {
      ($0, max(0, Self.nanoseconds($0.end - $0.start, .down)))
    }
  }

  /// The file operations whose answers a test must give: reads, lists and exists checks, and
  /// any operation that failed. Writes that succeeded need nothing but to be accepted.
  ///
  /// Not those of the saved file (and the files set beside it): the test's saves write it, and
  /// read back what they wrote, as on a disk. The session's saves read it when they found it
  /// there, and a test served those answers in order gave its first save the second one's file
  /// (a change by another writer: saved beside, and the test failed).
  var fileAnswers: [RecordedExchange] {
    exchanges.filter { exchange in
      // One whose effect was cancelled before it took the answer gave it nothing.
      guard exchange.kind == .file, !exchange.cancelled else { return false }
      let operation = exchange.request.operation.stringValue ?? ""
      if let savedPath, let path = exchange.request.path.stringValue,
        path == savedPath || path.hasPrefix(savedPath + ".")
      {
        return false
      }
      return exchange.error != nil || ["read", "list", "exists"].contains(operation)
    }
  }
}

extension SessionTestPlan {
  /// The effects (saves aside) a TestStore still runs after the plan's steps, as its messages
  /// name them: found by running the steps as a Lua test, not written anywhere, that prints
  /// them. Nil when that run could not tell (the steps did not load or run to the end).
  func effectsInFlight() async -> [String]? {
    let probe = "\u{1}composable :test in flight: "
    guard let text = try? LuaTestWriter.text(self, name: "probe", probe: probe) else {
      return nil
    }
    let name = feature.deletingPathExtension().lastPathComponent + "_probe_test.lua"
    let results = await LuaTestRunner().run(
      source: text, name: name, directory: feature.deletingLastPathComponent())
    guard results.count == 1 else { return nil }
    var printed = results[0].output.filter { $0.hasPrefix(probe) }.map {
      String($0.dropFirst(probe.count))
    }
    guard !printed.isEmpty, let count = Int(printed.removeFirst()), count == printed.count else {
      return nil
    }
    return printed.filter { !$0.hasPrefix(StateSaver.effectNamePrefix) }
  }
}

extension SessionTestPlan {
  /// The comment over an action that raised when recorded: its number, the action, `outcome`,
  /// and the first line of its error (as a comment line: the message is the feature's, any
  /// character).
  fileprivate func failureComment(
    _ syntax: TestSyntax, _ number: Int, _ action: LuaValue, _ error: String, _ outcome: String
  ) -> [String] {
    [
      "    \(syntax.comment) action \(number) (\(LuaComment.line(action.description))) raised "
        + "when recorded, \(outcome):",
      "    \(syntax.comment) \(LuaComment.line(Self.firstLine(error)))",
    ]
  }
}

extension SessionTestPlan {
  /// The lines of one step, indented 4 spaces (a line may hold several: an action's literal).
  fileprivate func lines(of step: Step, _ syntax: TestSyntax) throws(LuaError) -> [String] {
    switch step {
    case let .advance(nanoseconds):
      return ["    " + syntax.advance(nanoseconds)]
    case .cancelEffects:
      // What effects sent at once and the jump undid (an `effect.send`'s action) is dropped
      // too: the test cannot receive it and go on.
      // Said as what the session did there: after `:undo` then `:redo` back to the end, "undid
      // them" read as if actions were skipped for nothing (a new user's finding).
      return [
        "    \(syntax.comment) :goto, :undo or :redo here: what effects sent at once and was "
          + "not asserted is dropped,",
        "    \(syntax.comment) and what was running is cancelled, as the session did",
        "    \(syntax.skipReceivedActions)",
        "    \(syntax.skipInFlightEffects)",
      ]
    case let .cancelledByHand(what):
      return [
        "    \(syntax.comment) Here the session ended "
          + "\(LuaComment.line(what.joined(separator: ", "))) with :cancel, which a test cannot do."
      ]
    case let .leftOut(number, action, error):
      return failureComment(syntax, number, action, error, "and is left out")
    case let .sendFailing(number, action, error):
      let (open, close) = syntax.expectFailure([Self.expectedMessage(error)])
      let call = ("    " + syntax.call("send", try syntax.literal(action)))
        .split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
      return failureComment(syntax, number, action, error, "and fails here too")
        + ["    " + open] + call + ["    " + close]
    case let .receiveFailed(number, action, error):
      return failureComment(syntax, number, action, error, "as it does above")
        + ["    " + syntax.call("receive", try syntax.literal(action))]
    case let .send(action, before, after), let .receive(action, before, after):
      let method: String
      if case .send = step { method = "send" } else { method = "receive" }
      let changes = try syntax.changes(before, after)
      let literal = try syntax.literal(action)
      guard !changes.isEmpty else { return ["    " + syntax.call(method, literal)] }
      var lines = ["    " + syntax.open(method, literal)]
      for change in changes {
        lines += change.split(separator: "\n", omittingEmptySubsequences: false).map {
          "      " + $0
        }
      }
      return lines + ["    " + syntax.close]
    }
  }
}

/// How one test language writes the plan's steps: the Lua and the Swift writers each give one,
/// and `SessionTestPlan.body` walks the steps once for both.
struct TestSyntax: Sendable {
  /// `--` or `//`.
  let comment: String
  /// The statement that moves the test clock `nanoseconds` on.
  let advance: @Sendable (_ nanoseconds: Int) -> String
  /// An action as the language writes it.
  let literal: @Sendable (_ action: LuaValue) throws(LuaError) -> String
  /// The statements that make `before` into `after` in the expected-state closure.
  let changes: @Sendable (_ before: LuaValue, _ after: LuaValue) throws(LuaError) -> [String]
  /// `store:send(ACTION)`, and with a change, its opening (`store:send(ACTION, function(s)`)
  /// and closing (`end)`) lines.
  let call: @Sendable (_ method: String, _ literal: String) -> String
  let open: @Sendable (_ method: String, _ literal: String) -> String
  let close: String
  /// The lines around statements whose store calls fail, each of `messages` in one of the
  /// failures' messages (`expect_failure(...)`, `withKnownIssue`).
  let expectFailure: @Sendable (_ messages: [String]) -> (open: String, close: String)
  /// Whether `expectFailure` sees the failures of effects' actions that an advance wakes. Swift's
  /// `withKnownIssue` does not: those are recorded by the effects' tasks, which it does not see.
  let expectsFailuresInAdvances: Bool
  let skipInFlightEffects: String
  let skipReceivedActions: String
  let finish: String
}

extension SessionTestPlan {
  /// The test's body, indented 4 spaces: the steps, then what was still running, the wait for
  /// a save, and the finish (unless `stepsOnly`).
  func body(_ syntax: TestSyntax, stepsOnly: Bool = false) throws(LuaError) -> [String] {
    var rendered: [[String]] = []
    for step in steps { rendered.append(try lines(of: step, syntax)) }
    var lines: [String] = []
    var index = 0
    for run in failuresExpected {
      for step in rendered[index..<run.from] { lines += step }
      let inside = rendered[run.from...run.through].flatMap { $0 }
      let advances = steps[run.from...run.through].contains {
        if case .advance = $0 { true } else { false }
      }
      if advances, !syntax.expectsFailuresInAdvances {
        lines.append(
          "    \(syntax.comment) An action an effect sends below raises; this test cannot "
            + "expect that failure, and fails there.")
        lines += inside
      } else {
        let (open, close) = syntax.expectFailure(run.messages)
        // (A line may hold several: an action's literal over many lines.)
        let wrapped = inside.flatMap {
          $0.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
        }
        lines += ["    " + open] + wrapped + ["    " + close]
      }
      index = run.through + 1
    }
    for step in rendered[index...] { lines += step }
    if stepsOnly { return lines }
    if undoneReceived {
      lines.append(
        "    \(syntax.skipReceivedActions)  \(syntax.comment) what effects sent that the "
          + "session undid")
    }
    if !inFlight.isEmpty {
      lines.append(
        "    \(syntax.comment) Still running at the test's end (what its steps started): "
          + "\(inFlight.joined(separator: ", ")).")
      lines.append("    " + syntax.skipInFlightEffects)
    }
    if let delay = saveDelay, delay > 0 {
      let nanoseconds = Self.nanoseconds(delay, .up)
      lines.append("    \(syntax.advance(nanoseconds))  \(syntax.comment) the save")
      if !inFlight.isEmpty { lines.append("    " + syntax.skipReceivedActions) }
    }
    lines.append("    " + syntax.finish)
    return lines
  }
}
