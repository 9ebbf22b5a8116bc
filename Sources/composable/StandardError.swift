import ComposableHost
import Foundation

/// What the command says went wrong, on standard error: `error: <message>` (or `warning:`),
/// one line, so that standard output stays the session's. Its control characters are shown, not
/// sent to the terminal (the message may quote what a feature raised).
func printError(_ message: String, kind: String = "error") {
  writeToStandardError("\(kind): \(message.terminalSafe)\n")
}

/// Writes `text` to standard error with `write(2)`, whole, and goes on if it cannot: a closed
/// or full standard error (`2>&-`, `2>/dev/full`) must not stop the command where
/// `FileHandle.write` would trap.
func writeToStandardError(_ text: String) {
  var bytes = Array(text.utf8)[...]
  while !bytes.isEmpty {
    let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    if written < 0, errno == EINTR { continue }
    guard written > 0 else { return }
    bytes = bytes.dropFirst(written)
  }
}
