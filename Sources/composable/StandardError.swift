import Foundation

/// What the command says went wrong, on standard error: `error: <message>` (or `warning:`),
/// one line, so that standard output stays the session's.
func printError(_ message: String, kind: String = "error") {
  FileHandle.standardError.write(Data("\(kind): \(message)\n".utf8))
}
