import ComposableLua
import LuaKit

/// How a replay went against the recording: the first action that now raises, and the first
/// whose reducer now returns another effect (by their numbers), and how many no longer raise.
public struct ReplayReport: Equatable, Sendable {
  public struct Raised: Equatable, Sendable {
    public let number: Int
    public let action: LuaValue
    public let error: String
  }

  public struct ChangedEffect: Equatable, Sendable {
    public let number: Int
    public let action: LuaValue
    public let recorded: LuaValue
    public let now: LuaValue
  }

  public private(set) var count = 0
  public private(set) var firstRaising: Raised?
  public private(set) var firstChangedEffect: ChangedEffect?
  public private(set) var noLongerRaising = 0

  public init() {}

  /// Nothing raises that did not, and every effect is as recorded.
  public var fits: Bool { firstRaising == nil && firstChangedEffect == nil }

  mutating func compare(number: Int, recorded: RecordedAction, now: SessionReplayer.Outcome) {
    count += 1
    if let error = now.action.error {
      if !recorded.failed, firstRaising == nil {
        firstRaising = Raised(number: number, action: recorded.action, error: error)
      }
      return
    }
    if recorded.failed { noLongerRaising += 1 }
    if firstChangedEffect == nil, now.action.effect != recorded.effect {
      firstChangedEffect = ChangedEffect(
        number: number, action: recorded.action, recorded: recorded.effect, now: now.action.effect)
    }
  }

  /// The report as the REPL and `composable replay` print it, one line per finding.
  public func lines(colored: Bool) -> [String] {
    var lines: [String] = []
    if let raised = firstRaising {
      lines.append("action \(raised.number) (\(raised.action)) now raises: \(raised.error)")
    }
    if let changed = firstChangedEffect {
      lines.append("action \(changed.number) (\(changed.action)) now returns another effect:")
      lines += LuaDifference(path: "", old: changed.recorded, new: changed.now)
        .lines(root: "effect", colored: colored).map { "  " + $0 }
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
