import Foundation

/// Runs `body` on a thread of its own when the process is told to end: SIGINT (Ctrl-C), SIGTERM
/// (a kill), SIGHUP (its terminal closed), or SIGPIPE once its output is gone (`... | head -1`
/// exited). The handler only writes the signal's number to a pipe (what a handler may do); the
/// thread reads it and does the work. A handler is installed whatever the disposition was: a
/// shell that starts a command in the background has it ignore SIGINT, and a dispatch source
/// would then never hear of it.
enum SignalSaver {
  /// The pipe's write end, set once before any handler can run.
  nonisolated(unsafe) static var writeEnd: Int32 = -1

  /// The signals that end the process after `body` ran.
  static let signals = [SIGINT, SIGTERM, SIGHUP, SIGPIPE]

  static func install(_ body: @escaping @Sendable (Int32) -> Void) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return }
    writeEnd = ends[1]
    let readEnd = ends[0]
    Thread {
      var number: UInt8 = 0
      while true {
        guard read(readEnd, &number, 1) == 1 else { continue }
        // A write to anything else that went away (a socket an effect wrote to) fails with
        // EPIPE where it was made, which handles it: only lost output ends the process.
        if Int32(number) == SIGPIPE && !outputIsGone() { continue }
        body(Int32(number))
        return
      }
    }.start()
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { signalNumber in
      var number = UInt8(truncatingIfNeeded: signalNumber)
      _ = write(SignalSaver.writeEnd, &number, 1)
    }
    sigemptyset(&action.sa_mask)
    for signalNumber in signals { sigaction(signalNumber, &action, nil) }
  }

  /// Whether standard output or standard error is a pipe or socket whose reader is gone.
  static func outputIsGone() -> Bool {
    var descriptors = [
      pollfd(fd: STDOUT_FILENO, events: 0, revents: 0),
      pollfd(fd: STDERR_FILENO, events: 0, revents: 0),
    ]
    guard poll(&descriptors, 2, 0) > 0 else { return false }
    return descriptors.contains { $0.revents & Int16(POLLERR | POLLHUP) != 0 }
  }
}
