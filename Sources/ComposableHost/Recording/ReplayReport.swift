import ComposableLua
import LuaKit

/// How a replay went against the recording: the first action that now raises, and the first
/// whose reducer now returns another effect (by their numbers), and how many no longer raise.
public struct ReplayReport: Equatable, Sendable {
  /// An action that raises in the replay and did not when it was recorded.
  public struct Raised: Equatable, Sendable {
    /// The action's number in the session, from 1.
    public let number: Int
    /// The action, as recorded.
    public let action: LuaValue
    /// What it raises now, as `RecordedAction.error` holds an error.
    public let error: String
  }

  /// An action whose effect is as recorded but holds functions whose code differs now.
  public struct ChangedEffectCode: Equatable, Sendable {
    /// The action's number in the session, from 1.
    public let number: Int
    /// The action, as recorded.
    public let action: LuaValue
  }

  /// An action whose reducer returns another effect in the replay than it did when recorded,
  /// the two compared as `LuaValue.effectDescription`.
  public struct ChangedEffect: Equatable, Sendable {
    /// The action's number in the session, from 1.
    public let number: Int
    /// The action, as recorded.
    public let action: LuaValue
    /// The effect it returned when recorded; nil for none.
    public let recorded: LuaValue
    /// The effect it returns in the replay; nil for none.
    public let now: LuaValue
  }

  /// An action that raises in the replay as it did when recorded, but another error (its
  /// `file.lua:N:` places and the local names it gives aside: `RecordedAction.sameError`).
  public struct ChangedError: Equatable, Sendable {
    /// The action's number in the session, from 1.
    public let number: Int
    /// The action, as recorded.
    public let action: LuaValue
    /// The error it raised when recorded.
    public let recorded: String
    /// The error it raises now.
    public let now: String
  }

  /// How many actions were compared.
  public private(set) var count = 0
  /// The first action that raises now and did not when recorded; nil when there is none.
  public private(set) var firstRaising: Raised?
  /// The first action, of those that do not raise now, whose effect is not the recorded one; nil
  /// when there is none.
  public private(set) var firstChangedEffect: ChangedEffect?
  /// The first action that raises now, as it did when recorded, another error; nil when none.
  public private(set) var firstChangedError: ChangedError?
  /// The first action, of those whose effect is as recorded, whose effect holds functions whose
  /// code differs now (an `effect.run` coroutine that sends other actions): nil when none, or
  /// when the recording kept no code to compare (a session file keeps none; the REPL does).
  public private(set) var firstChangedEffectCode: ChangedEffectCode?
  /// How many actions raised when recorded and do not now.
  public private(set) var noLongerRaising = 0

  /// An empty report: nothing compared, nothing found. A replay fills one in
  /// (`SessionPlayback.run(_:feature:)` returns it as `report`).
  ///
  /// ```swift
  /// let empty = ReplayReport()
  /// assert(empty.fits && empty.count == 0)
  /// let playback = try SessionPlayback.run(recording, feature: featureFile)
  /// for line in playback.report.lines(colored: false) { print(line) }
  /// ```
  public init() {}

  /// Nothing raises that did not, or raises another error, and every effect is as recorded.
  public var fits: Bool {
    firstRaising == nil && firstChangedEffect == nil && firstChangedError == nil
      && firstChangedEffectCode == nil
  }

  /// Every action went as recorded: it fits, and none that raised then runs now.
  /// `composable replay` exits 0 on such a replay, and a piped REPL's `:replay` counts the
  /// others as failures of the script.
  public var asRecorded: Bool { fits && noLongerRaising == 0 }

  /// Compares one action; `effectCode`, when the recording kept it, is the hash of the code its
  /// effect's functions held then (`ActionHashes.effectCode`), to compare with now's.
  mutating func compare(
    number: Int, recorded: RecordedAction, now: SessionReplayer.Outcome,
    effectCode: ActionHashes? = nil
  ) {
    count += 1
    if let error = now.action.error {
      if !recorded.failed, firstRaising == nil {
        firstRaising = Raised(number: number, action: recorded.action, error: error)
      } else if let then = recorded.error, !RecordedAction.sameError(error, then),
        firstChangedError == nil
      {
        // As the check of a reload has it (a replay took any error for the one recorded).
        firstChangedError = ChangedError(
          number: number, action: recorded.action, recorded: then, now: error)
      }
      return
    }
    if recorded.failed { noLongerRaising += 1 }
    // `effect.none` is no effect, as the check of a reload has it.
    if !RecordedAction.sameEffect(now.action.effect, recorded.effect) {
      if firstChangedEffect == nil {
        firstChangedEffect = ChangedEffect(
          number: number, action: recorded.action, recorded: recorded.effect,
          now: now.action.effect)
      }
    } else if let effectCode, effectCode.effectCode != now.hashes.effectCode,
      firstChangedEffectCode == nil
    {
      // As the check of a reload has it: the same effect, other code in its functions.
      firstChangedEffectCode = ChangedEffectCode(number: number, action: recorded.action)
    }
  }

  /// The report as the REPL and `composable replay` print it, one line per finding.
  public func lines(colored: Bool) -> [String] {
    var lines: [String] = []
    if let raised = firstRaising {
      lines.append("action \(raised.number) (\(raised.action)) now raises: \(raised.error)")
    }
    if let changed = firstChangedError {
      lines.append(
        "action \(changed.number) (\(changed.action)) now raises another error: \(changed.now) "
          + "(was: \(changed.recorded))")
    }
    if let changed = firstChangedEffect {
      lines.append("action \(changed.number) (\(changed.action)) now returns another effect:")
      lines += Self.effectDifference(changed.recorded, changed.now, colored: colored)
        .map { "  " + $0 }
    }
    if let changed = firstChangedEffectCode {
      lines.append(
        "action \(changed.number) (\(changed.action)) returns the same effect, whose functions' "
          + "code differs now (what it sends may differ)")
    }
    if noLongerRaising > 0 {
      lines.append(
        noLongerRaising == 1
          ? "1 action that raised when recorded no longer raises"
          : "\(noLongerRaising) actions that raised when recorded no longer raise")
    }
    return lines
  }
}

extension ReplayReport {
  /// Two effects' difference, field by field where both are tables (`− effect.request.url =
  /// ".../Dune"`, `+ effect.request.url = ".../DUNE"`), as a state's is shown: whole, a
  /// nested effect that differed in one string was two lines of 400 characters to compare by
  /// eye (a new user's finding). Whole when short, for a change of kind, or past 12 fields.
  static func effectDifference(_ old: LuaValue, _ new: LuaValue, colored: Bool) -> [String] {
    let whole = LuaDifference(path: "", old: old, new: new).lines(root: "effect", colored: colored)
    // Short, they read whole (`effect = { kind = "after", seconds = 1, ... }`).
    guard whole.contains(where: { $0.utf8.count > 100 }), old.tableValue != nil,
      new.tableValue != nil, old["kind"] == new["kind"]
    else { return whole }
    let differences = LuaValue.differences(from: old, to: new)
    guard !differences.isEmpty, differences.count <= 12 else { return whole }
    func rooted(_ path: String) -> String { "effect" + (path.hasPrefix("[") ? "" : ".") + path }
    return differences.flatMap { difference -> [String] in
      let path = rooted(difference.path)
      let rooted =
        difference.sameAs.map { LuaDifference(path: path, sameAs: rooted($0)) }
        ?? LuaDifference(path: path, old: difference.old, new: difference.new)
      return rooted.lines(colored: colored)
    }
  }
}
