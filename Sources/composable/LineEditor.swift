import ComposableHost
import Foundation
import TerminalSupport

/// Line editing at the terminal, on libedit: arrows, Home/End, Ctrl-R to search the history,
/// the history kept in a file across sessions, and Tab completion from `complete`. libedit is
/// opened when the first editor is made; without it (not installed) there is none.
final class LineEditor {
  /// What Tab offers: the words that complete the word under the cursor, given the line.
  /// libedit calls back through C, so the completer lives where a C function can reach it.
  nonisolated(unsafe) static var complete: (_ word: String, _ line: String) -> [String] = {
    _, _ in []
  }
  nonisolated(unsafe) private static var matches: [String] = []

  let historyFile: URL
  /// Whether the history file may be read and written: a regular file of at most
  /// `longestHistory` bytes, or none yet. A FIFO there blocked the REPL before its first
  /// prompt, and `/dev/zero` filled the memory.
  let keepsHistory: Bool

  /// The most bytes of history read (libedit keeps 800 lines; 4 MiB is long lines of them).
  static let longestHistory = 4 << 20

  init?(historyFile: URL, complete: @escaping (_ word: String, _ line: String) -> [String]) {
    guard te_open() != 0 else { return nil }
    self.historyFile = historyFile
    Self.complete = complete
    try? FileManager.default.createDirectory(
      at: historyFile.deletingLastPathComponent(), withIntermediateDirectories: true)
    // Ctrl-C ends the line being typed, not the session (Ctrl-D or :quit do; SIGTERM still
    // saves and exits).
    ts_catch_interrupts()
    te_using_history()
    var status = stat()
    if stat(historyFile.path, &status) == 0 {
      keepsHistory =
        status.st_mode & S_IFMT == S_IFREG && Int(status.st_size) <= Self.longestHistory
    } else {
      keepsHistory = errno == ENOENT
    }
    if keepsHistory {
      _ = te_read_history(historyFile.path)
    } else {
      printError(
        "\(historyFile.path.terminalSafe) is not a regular file of at most 4 MiB, so this "
          + "session keeps no history. To fix, remove it", kind: "note")
    }
    // libedit's emacs keys leave Ctrl-R to redisplay; readline users expect a search.
    _ = te_parse_and_bind("bind ^R em-inc-search-prev")
    // Ctrl-D on an empty line ends the session (libedit's readline inserts it otherwise).
    _ = te_parse_and_bind("bind ^D em-delete-or-list")
    te_set_completion { text, _, _ in
      te_completion_is_over()  // never fall back to file names
      guard let text else { return nil }
      return te_completion_matches(text) { text, state in
        if state == 0 {
          let word = text.map { String(cString: $0) } ?? ""
          let line = te_line_buffer().map { String(cString: $0) } ?? ""
          LineEditor.matches = LineEditor.complete(word, line)
        }
        guard Int(state) < LineEditor.matches.count else { return nil }
        return strdup(LineEditor.matches[Int(state)])
      }
    }
  }

  /// The next line's bytes as typed (not decoded: what is not UTF-8 stays as it is), or nil at
  /// the end of the input (Ctrl-D). A line that is not blank joins the history, which is
  /// written at once: a session killed keeps what was typed.
  func readLine(prompt: String) -> [UInt8]? {
    while true {
      _ = ts_take_interrupt()
      let pointer = te_readline(prompt)
      if ts_take_interrupt() != 0 {
        // The line is dropped; a new prompt on a line of its own.
        free(pointer)
        print("^C")
        continue
      }
      guard let pointer else { return nil }
      return take(pointer)
    }
  }

  private func take(_ pointer: UnsafeMutablePointer<CChar>) -> [UInt8] {
    defer { free(pointer) }
    let line = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)).map { $0 }
    if !line.trimmingSpacesAndTabs.isEmpty {
      te_add_history(pointer)
      if keepsHistory { _ = te_write_history(historyFile.path) }
    }
    return line
  }

  /// Where a feature's history is kept: `$XDG_STATE_HOME/composable/NAME.history`, by default
  /// under `~/.local/state`.
  static func historyFile(for feature: URL) -> URL {
    let base = xdgDirectory("XDG_STATE_HOME", fallback: ".local/state")
    let name = feature.deletingPathExtension().lastPathComponent
    return base.appendingPathComponent("composable").appendingPathComponent(name + ".history")
  }
}
