import Foundation
import TerminalSupport

/// Runs `body` on a thread of its own when the process is told to end: SIGINT (Ctrl-C), SIGTERM
/// (a kill), SIGHUP (its terminal closed), or SIGPIPE once its output is gone (`... | head -1`
/// exited): one the kernel raised on a write of this process, never one another process sent.
/// The handler (TerminalSupport's EndingSignals.c) only notes the signal and wakes the thread,
/// which does the work. SIGINT and SIGPIPE are caught whatever their disposition was: a shell
/// that starts a command in the background has it ignore SIGINT (no choice of the user's), and
/// a dispatch source would then never hear of it. SIGHUP and SIGTERM found ignored stay
/// ignored: that is the user's choice (`nohup composable run ...` must outlive its terminal).
enum SignalSaver {
  /// The signals that end the process after `body` ran, in the order one is taken when more
  /// than one came: SIGPIPE last, since it may be no reason to end (below).
  static let endingSignals: [Int32] = [SIGTERM, SIGINT, SIGHUP, SIGPIPE]

  /// The signals an ignoring parent (`nohup`) keeps ignored.
  static let ignorable: Set<Int32> = [SIGHUP, SIGTERM]

  /// `endingSignals` without those the process was started ignoring that it keeps ignoring.
  static var signals: [Int32] {
    endingSignals.filter { !ignorable.contains($0) || ts_signal_is_ignored($0) == 0 }
  }

  /// `body` is given the signal, and whether the action gate was taken (false when the action
  /// under way held it past the wait: it may commit and print after `body` begins).
  static func install(_ body: @escaping @Sendable (Int32, _ gated: Bool) -> Void) {
    let signals = self.signals
    let reader = signals.withUnsafeBufferPointer {
      ts_catch_ending_signals($0.baseAddress, Int32($0.count))
    }
    guard reader >= 0 else { return }
    Thread {
      while true {
        let number = signals.withUnsafeBufferPointer {
          ts_wait_ending_signal(reader, $0.baseAddress, Int32($0.count))
        }
        guard number > 0 else { return }
        // A write to anything else that went away (a socket an effect wrote to, standard error
        // closed) fails with EPIPE where it was made, which handles it: only lost output ends
        // the process.
        if number == SIGPIPE && !outputIsGone() { continue }
        // The action under way finishes, shown, and no other starts: what the output showed
        // applied is what is saved. Not waited for past 2 s: an action stuck writing into a full
        // pipe must not keep a kill from ending the run.
        let gated = actionGate.lock(before: Date(timeIntervalSinceNow: 2))
        body(number, gated)
        return
      }
    }.start()
  }

  /// The last line a run ended by `signal` writes to standard error, once the save is done:
  /// what became of the input and the state, and the status. `saved`: nil for a feature that
  /// keeps no state on disk, else what became of the save (beside its file: said so, where
  /// "saved" alone read as saved in its file, after the line that said otherwise).
  ///
  /// A run whose output's reader went away (`... | head -1`) stops where it was, as a command
  /// killed by SIGPIPE would: an endless input must not keep it running with no one reading.
  static func endingLine(_ signal: Int32, saved: Run.SaveOutcome?) -> String {
    let state =
      switch saved {
      case nil: ""
      case .saved?: signal == SIGPIPE ? ", and the state the actions so far left was saved" : ""
      case .savedBeside?: ", and the state was saved beside its file"
      case .failed?: ", and the state could not be saved"
      }
    let status = "(exit status \(128 + signal))"
    if signal == SIGPIPE {
      return "the output's reader went away (as after `| head -1`): the run stopped there; the "
        + "input not read yet was not run\(state) \(status)"
    }
    let name =
      switch signal {
      case SIGINT: "SIGINT (Ctrl-C)"
      case SIGTERM: "SIGTERM"
      case SIGHUP: "SIGHUP (the terminal closed)"
      default: "signal \(signal)"
      }
    let saving = saved == .saved ? ": the state was saved" : state
    return "stopped by \(name)\(saving) \(status)"
  }

  /// Held while an action is reduced and shown (`SignalGatedReducer`), and taken for good by
  /// the signal's thread before it saves and ends the process.
  static let actionGate = NSLock()

  /// Writes `message` to standard error as `printError` does, but only while there is room:
  /// standard error may be a pipe no one reads (shared with the output, full), and a write that
  /// blocks there would keep the process from ending. What finds no room within 100 ms is
  /// dropped.
  static func say(_ message: String, kind: String = "error") {
    var bytes = Array("\(kind): \(message.terminalSafe)\n".utf8)[...]
    while !bytes.isEmpty {
      var descriptor = pollfd(fd: STDERR_FILENO, events: Int16(POLLOUT), revents: 0)
      guard poll(&descriptor, 1, 100) > 0, descriptor.revents & Int16(POLLOUT) != 0 else {
        return
      }
      // No more than a pipe takes at once once it polls writable (PIPE_BUF): never blocks.
      let part = bytes.prefix(Int(PIPE_BUF))
      let written = part.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
      if written < 0, errno == EINTR { continue }
      guard written > 0 else { return }
      bytes = bytes.dropFirst(written)
    }
  }

  /// Whether standard output is a pipe or socket whose reader is gone. (Standard error gone is
  /// no reason to end: the errors are lost, the output still read.)
  static func outputIsGone() -> Bool {
    var descriptor = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
    if poll(&descriptor, 1, 0) > 0, descriptor.revents & Int16(POLLERR | POLLHUP) != 0 {
      return true  // a pipe with no reader
    }
    // A socket whose reader shut down reading polls as writable: an empty send says EPIPE.
    // (An empty write to a pipe says nothing; to anything but a socket, ENOTSOCK.)
    let sent = send(STDOUT_FILENO, nil, 0, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
    return sent < 0 && errno == EPIPE
  }
}
