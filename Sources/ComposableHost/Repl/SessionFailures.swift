import Synchronization

/// What failed during a REPL session, counted as it is reported: actions (rolled back or
/// refused), effects, and reloads that were refused (a syntax error, a `migrate` that raised).
/// A host reads it at the end, for its exit status (`composable run` at a terminal exits 2
/// when any failed). Lines that were not actions are counted apart (`lines`), for a host
/// reading its input from a pipe, where they are a failure of the script (`composable repl`
/// piped exits 2); at a prompt they are typing, as commands refused are, not counted at all.
public final class SessionFailures: Sendable {
  private let tally = Mutex(
    (actions: 0, effects: 0, reloads: 0, lines: 0, saves: 0, commands: 0, replays: 0))

  /// An empty count.
  ///
  /// ```swift
  /// let failures = SessionFailures()
  /// failures.noteAction()
  /// exit(failures.any ? 2 : 0)
  /// ```
  public init() {}

  /// An action the reducer failed on or refused.
  public func noteAction() { tally.withLock { $0.actions += 1 } }

  /// An effect that failed while it ran.
  public func noteEffect() { tally.withLock { $0.effects += 1 } }

  /// A reload that was refused: the old code runs on.
  public func noteReload() { tally.withLock { $0.reloads += 1 } }

  /// A line that was not an action (it could not be read as one, or the input ended with it
  /// still open), which `any` leaves out.
  public func noteLine() { tally.withLock { $0.lines += 1 } }

  /// A command (`:save`, `:goto 99`, `= nil + 1`) that said an error, which `any` leaves out:
  /// piped, it fails the script (`:save` to a folder that is not there exited 0); at a prompt,
  /// it is typing.
  public func noteCommand() { tally.withLock { $0.commands += 1 } }

  /// A `:replay` that did not go as the session went (an action raises now, or another error,
  /// or no longer; an effect changed), which `any` leaves out: piped, it fails the script, as
  /// `composable replay` fails on it; at a prompt, it is what the person asked to see.
  public func noteReplay() { tally.withLock { $0.replays += 1 } }

  /// A save of the state that failed, or went beside its file (another writer changed it),
  /// which `any` leaves out: a host's status says it apart (`composable repl` exits 1).
  public func noteSave() { tally.withLock { $0.saves += 1 } }

  /// How many actions, effects and reloads failed so far, how many lines were not actions, how
  /// many saves failed, how many commands said an error, and how many replays went otherwise.
  public var counts:
    (actions: Int, effects: Int, reloads: Int, lines: Int, saves: Int, commands: Int, replays: Int)
  {
    tally.withLock { $0 }
  }

  /// Whether anything failed so far.
  public var any: Bool {
    tally.withLock { $0.actions + $0.effects + $0.reloads > 0 }
  }
}
