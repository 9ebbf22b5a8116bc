import ComposableHost
import Foundation

/// What the command says went wrong, on standard error: `error: <message>` (or `warning:`),
/// one line, so that standard output stays the session's. Its control characters are shown, not
/// sent to the terminal (the message may quote what a feature raised).
func printError(_ message: String, kind: String = "error") {
  FileHandle.standardError.write(Data("\(kind): \(message.terminalSafe)\n".utf8))
}
