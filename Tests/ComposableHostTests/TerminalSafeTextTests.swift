import ComposableHost
import Foundation
import TestSupport
import Testing

/// What a feature raised reaches the terminal shown, not obeyed: every control character but a
/// line break and a tab is written as Lua writes it in a string.
@Suite struct TerminalSafeTextTests {
  @Test func everyControlCharacterIsShownAndTheRestIsKept() {
    for value in UInt32(0)...0x9F {
      let scalar = Unicode.Scalar(value)!
      let text = "a" + String(Character(scalar)) + "b"
      let safe = text.terminalSafe
      let isControl = value < 0x20 || value == 0x7F || value >= 0x80
      if value == 0x0A || value == 0x09 || !isControl {
        #expect(safe == text, "\(value)")
      } else {
        #expect(safe.hasPrefix("a\\") && safe.hasSuffix("b"), "\(value): \(safe)")
        #expect(!safe.unicodeScalars.contains(scalar), "\(value)")
      }
    }
  }

  @Test func anEscapeSequenceInAnErrorIsWrittenOut() {
    #expect("line1\nline2\r\u{1B}[31mRED\u{1B}[0m".terminalSafe == "line1\nline2\\r\\27[31mRED\\27[0m")
    #expect("plain ünïcode ✓".terminalSafe == "plain ünïcode ✓")
  }
}

/// The wiring: `composable run` and the REPL show a raised escape sequence, not obey it.
@Suite struct TerminalSafeErrorsTests {
  @Test func anErrorWithAnEscapeSequenceIsShownByRunAndTheRepl() throws {
    let directory = try makeTemporaryDirectory("terminal-safe")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("raises.lua")
    try """
      return { reduce = function(state, action) error("red\\r\\27[31mRED\\27[0m") end }
      """.write(to: feature, atomically: true, encoding: .utf8)
    for command in ["run", "repl"] {
      let outcome = try Command.run([command, feature.path], input: "boom\n")
      let all = outcome.output + outcome.errors
      #expect(!all.contains("\u{1B}[31m"), "\(command): \(all)")
      #expect(all.contains("red\\r\\27[31mRED\\27[0m"), "\(command): \(all)")
    }
  }

  @Test func whatAFeaturePrintsIsShownByRun() throws {
    let directory = try makeTemporaryDirectory("terminal-safe-print")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("prints.lua")
    try """
      return { reduce = function(state, action) print("a\\27[31mRED\\r") end }
      """.write(to: feature, atomically: true, encoding: .utf8)
    let outcome = try Command.run(["run", feature.path, "--data", directory.path], input: "go\n")
    #expect(!outcome.output.contains("\u{1B}"), "\(outcome.output)")
    #expect(outcome.output.contains("a\\27[31mRED\\r"), "\(outcome.output)")
  }
}

