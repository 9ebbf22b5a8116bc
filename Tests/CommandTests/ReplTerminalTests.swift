import Foundation
import TestSupport
import Testing

/// The REPL end to end, at a real pseudo-terminal (util-linux `script` gives the command one):
/// keys in as a person types them, each after the REPL has answered the last.
@Suite(.serialized) struct ReplTerminalTests {
  static let feature = """
    return {
      initial_state = function() return { count = 0, items = {} } end,
      reduce = function(state, action)
        if action.type == "increment" then state.count = state.count + 1
        elseif action.type == "add" then table.insert(state.items, action.item)
        end
      end,
    }
    """

  /// `composable repl` on a terminal, driven key by key.
  final class Terminal: @unchecked Sendable {
    let process = Process()
    let input = Pipe()
    private let lock = NSLock()
    private var output = ""
    private var seen: String.Index

    init(directory: URL, arguments: String = "tally.lua", command name: String = "repl") throws {
      seen = output.startIndex
      // `exec`: the shell `script` starts (whichever $SHELL names, /bin/sh when unset) must not
      // stay in the terminal's process group, or Ctrl-C reaches it too and dash ends with 130.
      let command =
        try "exec " + builtProduct("composable").path + " \(name) \(arguments) --data data"
      process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
      process.arguments = ["-qec", command, "/dev/null"]
      process.currentDirectoryURL = directory
      var environment = ProcessInfo.processInfo.environment
      environment["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
      environment["NO_COLOR"] = "1"
      process.environment = environment
      let reader = Pipe()
      process.standardInput = input
      process.standardOutput = reader
      reader.fileHandleForReading.readabilityHandler = { [self] handle in
        let text = String(decoding: handle.availableData, as: UTF8.self)
        lock.withLock { output += text }
      }
      try process.run()
    }

    /// Types `keys`, then waits (at most 20 s: a bound for a loaded machine running the
    /// sanitized build, not a pace) for `answer` to appear after what was seen.
    @discardableResult
    func type(_ keys: String, expecting answer: String) -> Bool {
      send(keys)
      for _ in 0..<2_000 {
        let found = lock.withLock { () -> Bool in
          guard let range = output.range(of: answer, range: seen..<output.endIndex) else {
            return false
          }
          seen = range.upperBound
          return true
        }
        if found { return true }
        Thread.sleep(forTimeInterval: 0.01)
      }
      return false
    }

    /// Types `keys` and waits for nothing.
    func send(_ keys: String) { input.fileHandleForWriting.write(Data(keys.utf8)) }

    /// Ctrl-D, and the exit status.
    func end() -> Int32 {
      input.fileHandleForWriting.write(Data("\u{04}".utf8))
      for _ in 0..<500 where process.isRunning { Thread.sleep(forTimeInterval: 0.01) }
      if process.isRunning { process.terminate() }
      process.waitUntilExit()
      return process.terminationStatus
    }

    var transcript: String { lock.withLock { output } }
  }

  /// A history file that is no regular file (a FIFO blocked the REPL before its first prompt;
  /// `/dev/zero` filled the memory) is said, and the session goes on without history.
  @Test(arguments: ["fifo", "zero"])
  func aHistoryFileThatIsNoFileIsSaidAndPassedBy(kind: String) throws {
    let directory = try makeTemporaryDirectory("terminal-history")
    defer { try? FileManager.default.removeItem(at: directory) }
    try Self.feature.write(
      to: directory.appendingPathComponent("tally.lua"), atomically: true, encoding: .utf8)
    let folder = directory.appendingPathComponent("state/composable")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let history = folder.appendingPathComponent("tally.history").path
    if kind == "fifo" {
      #expect(mkfifo(history, 0o600) == 0)
    } else {
      try FileManager.default.createSymbolicLink(atPath: history, withDestinationPath: "/dev/zero")
    }
    let terminal = try Terminal(directory: directory)
    #expect(
      terminal.type("", expecting: "so this session keeps no history"), "\(terminal.transcript)")
    #expect(terminal.type("", expecting: "> "), "\(terminal.transcript)")
    #expect(terminal.type("increment\r", expecting: "+ count = 1"), "\(terminal.transcript)")
    #expect(terminal.end() == 0, "\(terminal.transcript)")
  }

  @Test func arrowsTabTwoLineTablesCtrlCHistoryAndCtrlD() throws {
    let directory = try makeTemporaryDirectory("terminal")
    defer { try? FileManager.default.removeItem(at: directory) }
    try Self.feature.write(
      to: directory.appendingPathComponent("tally.lua"), atomically: true, encoding: .utf8)
    let first = try Terminal(directory: directory)
    #expect(first.type("", expecting: "> "))
    #expect(first.type("increment\r", expecting: "+ count = 1"), "\(first.transcript)")
    // Up recalls the last line.
    #expect(first.type("\u{1B}[A\r", expecting: "+ count = 2"), "\(first.transcript)")
    // Tab completes a command.
    #expect(first.type(":st\t\r", expecting: "{ count = 2, items = {} }"), "\(first.transcript)")
    // A table over two lines: the second prompt is `..`.
    #expect(first.type("{ type = \"add\",\r", expecting: ".. "), "\(first.transcript)")
    #expect(first.type(" item = \"x\" }\r", expecting: "+ items[1] = \"x\""), "\(first.transcript)")
    // Ctrl-C drops the line being typed and gives a new prompt; the session goes on.
    #expect(first.type("incr\u{03}", expecting: "^C"), "\(first.transcript)")
    // The new prompt before typing on: on a loaded machine (the sanitized build in parallel),
    // keys typed while the interrupt is still being handled are dropped with the old line.
    #expect(first.type("", expecting: "> "), "\(first.transcript)")
    #expect(first.type("= state.count + 40\r", expecting: "42"), "\(first.transcript)")
    #expect(first.end() == 0, "\(first.transcript)")
    // The next session has the history: Up recalls the last line, and Ctrl-R finds
    // `increment`. Up first: until libedit has the terminal, its line discipline would take
    // Ctrl-R as its own (reprint) and drop it, where an arrow's bytes wait for libedit.
    let second = try Terminal(directory: directory)
    #expect(second.type("", expecting: "> "))
    #expect(second.type("\u{1B}[A", expecting: "= state.count + 40"), "\(second.transcript)")
    second.send("\u{1B}[B")  // back to the empty line
    #expect(second.type("\u{12}incr", expecting: "increment"), "\(second.transcript)")
    #expect(second.type("\r", expecting: "+ count = 1"), "\(second.transcript)")
    #expect(second.end() == 0, "\(second.transcript)")
    let history = try String(
      contentsOf: directory.appendingPathComponent("state/composable/tally.history"),
      encoding: .utf8)
    #expect(history.contains("increment"))
  }

  /// SyncUps at a terminal, as a person drives it: a detail pushed, its edit sheet opened and
  /// cancelled by address (Tab completing the addresses), a meeting started, `:goto` back, and
  /// `:test`: the generated test passes as written.
  @Test func syncUpsScreensByAddressGotoAndTest() throws {
    let directory = try makeTemporaryDirectory("terminal")
    defer { try? FileManager.default.removeItem(at: directory) }
    let example = repositoryRoot.appendingPathComponent("examples/syncups")
    for name in ["syncups.lua", "syncup_form.lua", "syncup_detail.lua", "record_meeting.lua"] {
      try FileManager.default.copyItem(
        at: example.appendingPathComponent(name), to: directory.appendingPathComponent(name))
    }
    let repl = try Terminal(directory: directory, arguments: "syncups.lua --paused")
    #expect(repl.type("", expecting: "> "))
    #expect(repl.type("add_tapped\r", expecting: "▸ destination: add"), "\(repl.transcript)")
    #expect(repl.type("confirm_add\r", expecting: "▸ destination: closed"), "\(repl.transcript)")
    #expect(
      repl.type(
        "{ type = \"syncup_tapped\", id = state.syncups[1].id }\r",
        expecting: "▸ path: #1 detail"), "\(repl.transcript)")
    // Tab: `pa` to the only screen's address, then the action.
    #expect(repl.type("pa\t", expecting: "th#1"), "\(repl.transcript)")
    #expect(
      repl.type("edit_tapped\r", expecting: "▸ path#1 destination: edit"), "\(repl.transcript)")
    #expect(repl.type("path#1 des\t", expecting: "tination"), "\(repl.transcript)")
    #expect(
      repl.type("cancel\r", expecting: "▸ path#1 destination: closed"), "\(repl.transcript)")
    #expect(
      repl.type("path#1 start_meeting_tapped\r", expecting: "▸ path: #1 detail › #2 record"),
      "\(repl.transcript)")
    #expect(repl.type(":screens\r", expecting: "path#2 <action>"), "\(repl.transcript)")
    // Back to before the meeting: the record screen goes, its timer with it.
    #expect(repl.type(":goto 6\r", expecting: "▸ path: #1 detail"), "\(repl.transcript)")
    #expect(
      repl.type(":test session_test.lua\r", expecting: "it passes (composable test"),
      "\(repl.transcript)")
    #expect(repl.end() == 0, "\(repl.transcript)")
    let test = try String(
      contentsOf: directory.appendingPathComponent("session_test.lua"), encoding: .utf8)
    #expect(test.contains(#"s.path.screens[1].state.destination = nil"#), "\(test)")
  }
}
