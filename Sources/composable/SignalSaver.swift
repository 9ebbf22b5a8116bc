import Foundation

/// Runs `body` on a thread of its own when SIGINT or SIGTERM arrives. The handler only writes
/// the signal's number to a pipe (what a handler may do); the thread reads it and does the
/// work. A handler is installed whatever the disposition was: a shell that starts a command in
/// the background has it ignore SIGINT, and a dispatch source would then never hear of it.
enum SignalSaver {
  /// The pipe's write end, set once before any handler can run.
  nonisolated(unsafe) static var writeEnd: Int32 = -1

  static func install(_ body: @escaping @Sendable (Int32) -> Void) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return }
    writeEnd = ends[1]
    let readEnd = ends[0]
    Thread {
      var number: UInt8 = 0
      while read(readEnd, &number, 1) != 1 {}
      body(Int32(number))
    }.start()
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { signalNumber in
      var number = UInt8(truncatingIfNeeded: signalNumber)
      _ = write(SignalSaver.writeEnd, &number, 1)
    }
    sigemptyset(&action.sa_mask)
    for signalNumber in [SIGINT, SIGTERM] { sigaction(signalNumber, &action, nil) }
  }
}
