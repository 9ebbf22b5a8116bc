import Composable
import ComposableLua
import Foundation
import LuaKit

/// A recorded session run again, headless, on the feature's code as it is now: what
/// `composable replay FILE` does.
public struct SessionPlayback: Sendable {
  /// The state after the last action.
  public let state: LuaValue
  /// Each action compared with how it went when recorded.
  public let report: ReplayReport
  /// How many actions raised this time (those that raised when recorded too).
  public let raised: Int
  /// Whether the feature's code (or a module's) changed since the recording.
  public let codeChanged: Bool

  /// Loads the feature at `url` with the session's env and initial state, checks that every
  /// recorded action fits it when its code is not the session's, and replays them all.
  public static func run(_ recording: SessionRecording, feature url: URL) throws -> SessionPlayback
  {
    let replayer = try SessionReplayer.fresh(recording, feature: url)
    let codeChanged = CodeFingerprint.of(replayer.feature, file: url) != recording.code
    // The code the session was recorded on handles its actions, whatever its source names (a
    // type handled by a table, or by the fallthrough of an `if`): it was refused, where `:save`
    // had just said how to replay it (an attacker's finding).
    if codeChanged { try SessionFit.check(recording, against: url) }
    var report = ReplayReport()
    var raised = 0
    for (index, recorded) in recording.actions.enumerated() {
      let outcome = replayer.replay(recorded)
      if outcome.error != nil { raised += 1 }
      report.compare(number: index + 1, recorded: recorded, now: outcome)
    }
    return SessionPlayback(
      state: try replayer.feature.state(), report: report, raised: raised,
      codeChanged: codeChanged)
  }
}

/// Whether a session's actions fit a feature's code: each action's type must be one the
/// feature handles (compared with in its source, or listed in `Feature.actions`), as Elm's
/// debugger checks an imported session's messages against the program's.
public enum SessionFit {
  /// A recorded action the feature does not handle (or one with no string type): its
  /// `description` names the action and says how to fix it.
  public struct Mismatch: Error, CustomStringConvertible, Sendable {
    public let description: String
  }

  /// Throws `Mismatch` for the first recorded action whose type the feature's file and the Lua
  /// files beside it never name (`KnownActionTypes.found(besides:)`). Actions that did nothing
  /// when recorded are skipped; a feature whose source names no type is not checked.
  public static func check(_ recording: SessionRecording, against feature: URL) throws {
    let known = KnownActionTypes.found(besides: feature)
    // A feature whose types cannot be found in its source (a table of handlers, say) is not
    // refused on that account: there is nothing to check against.
    guard !known.isEmpty else { return }
    // An action that did nothing when it was recorded (a misspelt type the REPL said no
    // feature handles) tells nothing about which feature the session is of.
    for (index, recorded) in recording.actions.enumerated() where !recorded.didNothing {
      guard case let .string(bytes) = recorded.action.type else {
        throw Mismatch(
          description: """
            action \(index + 1) (\(recorded.action)) has no string type, so it fits no \
            feature
            """)
      }
      // A type that is not UTF-8 is one no source names.
      let type = bytes.string ?? "\(LuaValue.string(bytes))"
      guard known.contains(type) else {
        let nearest = KnownActionTypes(known).nearest(to: type).map { " (did you mean \($0)?)" }
        throw Mismatch(
          description: """
            action \(index + 1) (\(recorded.action)) does not fit \
            \(feature.lastPathComponent): it handles no action of type \(type)\(nearest ?? ""). \
            To fix, replay it on the code it was recorded with, or, if the feature handles \
            \(type) in a way its source does not show, list it in the feature's `actions`.
            """)
      }
    }
  }
}
