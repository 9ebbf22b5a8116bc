import Glibc

/// A command line that does not say what to do, or says it wrongly: the message, then the
/// command's usage, and exit status 64 (EX_USAGE).
struct UsageError: Error {
  let message: String
  /// `-h` or `--help` was given: not an error, the help is printed instead.
  var isHelpRequest = false

  init(_ message: String) { self.message = message }

  static var help: UsageError {
    var error = UsageError("")
    error.isHelpRequest = true
    return error
  }
}

/// How a command ends after saying what went wrong itself: the process's exit status.
struct ExitStatus: Error {
  let code: Int32

  /// The command failed (a feature that did not load, a failing test): 1.
  static let failure = ExitStatus(code: 1)
  /// `run` read all its input, but an action or an effect failed, or a line was not an action:
  /// 2. The other lines ran, and the state they left was kept (and saved) as usual.
  static let actionsFailed = ExitStatus(code: 2)
  /// `run`'s output went away (its reader exited, as `| head -1` does) before it ended: 141,
  /// 128 + SIGPIPE, the status of a command the signal stopped (`SignalSaver`).
  static let outputGone = ExitStatus(code: 128 + SIGPIPE)
}
