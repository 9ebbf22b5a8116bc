import Synchronization
import ComposableLua
import Foundation
import LuaKit

/// What the REPL says, in Lua: each action's difference, errors, and the answers to commands.
/// Lines go to `write` whole (effects' actions print while the person types).
public struct ReplPrinter: Sendable {
  let write: @Sendable (String) -> Void
  let colored: Bool
  /// The action types the feature is known to handle, for "did you mean".
  let knownTypes: @Sendable () -> KnownActionTypes
  /// Notes a type seen coming back from an effect: one the feature sends, so one it handles.
  let noteSeen: @Sendable (String) -> Void

  /// A printer that gives `write` each block of lines, with ANSI colours when `colored`.
  /// `knownTypes` gives the types for "did you mean"; `noteSeen` is told each type an effect
  /// sends back.
  ///
  /// ```swift
  /// let printer = ReplPrinter(colored: true) { text in print(text) }
  /// ```
  public init(
    colored: Bool = false, knownTypes: @escaping @Sendable () -> KnownActionTypes = { .init() },
    noteSeen: @escaping @Sendable (String) -> Void = { _ in },
    write: @escaping @Sendable (String) -> Void
  ) {
    self.write = write
    self.colored = colored
    self.knownTypes = knownTypes
    self.noteSeen = noteSeen
  }

  func line(_ text: String) { write(text) }

  /// How many errors were printed so far (a command that printed one failed).
  var errorsPrinted: Int { errorTally.count.withLock { $0 } }
  private let errorTally = ErrorTally()

  /// The errors printed, counted in one place for every copy of the printer.
  private final class ErrorTally: Sendable {
    let count = Mutex(0)
  }

  func error(_ text: String) {
    errorTally.count.withLock { $0 += 1 }
    let text = text.terminalSafe
    write(indented(colored ? "\u{1B}[31merror:\u{1B}[0m " + text : "error: " + text))
  }

  /// An action reduced: an effect's comes in marked `←`; then what it changed, or that it
  /// changed nothing (with the nearest known type when its own is not known), or its error
  /// alone when it failed.
  func reduced(
    number: Int, _ recorded: RecordedAction,
    changes: Result<[LuaDifference], LuaFeatureError>, error: LuaFeatureError?
  ) {
    var lines: [String] = []
    if recorded.fromEffect {
      lines.append("← \(recorded.action)")
      if let type = recorded.action.type.stringValue { noteSeen(type) }
    }
    if let error {
      // The error alone, as `composable run` prints it: it says the state was rolled back (or
      // that the action was refused before the reducer ran); nothing changed to show.
      lines.append(indented("error: \(String(describing: error).terminalSafe)"))
    } else if let difference = LuaValue.notation(of: changes, colored: colored) {
      lines.append(indented(difference))
    } else {
      var text = "  no state change"
      if !recorded.fromEffect, recorded.effect == .nil,
        let unknown = knownTypes().unknownTypeNote(for: recorded.action)
      {
        text += ": " + unknown
      }
      lines.append(text)
    }
    write(lines.joined(separator: "\n"))
  }

  /// A replay of the session: how many actions ran, what the state is now next to what it
  /// was, and what the report found.
  func replayed(_ report: ReplayReport, before: LuaValue, after: LuaValue) {
    let actions = report.count == 1 ? "action" : "actions"
    var lines = ["  replayed \(report.count) \(actions) through the code loaded now"]
    if let difference = LuaValue.notationDifference(from: before, to: after, colored: colored) {
      lines.append(indented(difference))
    } else {
      lines.append("  the state is as it was")
    }
    lines += report.lines(colored: colored).map { "  " + $0 }
    write(lines.joined(separator: "\n"))
  }

  func indented(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
      .joined(separator: "\n")
  }
}
