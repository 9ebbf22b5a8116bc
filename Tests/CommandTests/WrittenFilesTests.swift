import Foundation
import LuaKit
import TestSupport
import Testing

/// What the runtime writes (saved states, sessions), it reads back, runs nothing in, and writes
/// over nothing it did not write (an attacker's findings: a state saved and then set aside at
/// every start for its size, a file name that put code in a saved file's header, `:save` over a
/// feature's own code, a private saved file made world-readable).
@Suite struct WrittenFilesTests {
  static let bag = """
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "bag.saved.lua", debounce = 0 },
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action)
        if action.type == "big" then
          local t = {}
          for i = 1, 1000001 do t[i] = 0 end
          state.big = t
        elseif action.type == "inc" then
          state.n = state.n + 1
        end
      end,
    }
    """

  func folder(_ name: String) throws -> (URL, URL) {
    let directory = try makeTemporaryDirectory(name)
    let feature = directory.appendingPathComponent("bag.lua")
    try Self.bag.write(to: feature, atomically: true, encoding: .utf8)
    return (directory, feature)
  }

  /// A state a data file cannot hold is not saved, said so, and the file saved before is kept:
  /// it was saved, and set aside at the next start as "not a saved state".
  @Test func aStateOfMoreFieldsThanAFileHoldsIsNotSavedAndTheLastSaveStays() throws {
    let (directory, feature) = try folder("fields")
    defer { try? FileManager.default.removeItem(at: directory) }
    let data = directory.appendingPathComponent("data").path
    let first = try Command.run(["run", feature.path, "--data", data], input: "inc\n")
    #expect(first.status == 0, "\(first.errors)")
    let big = try Command.run(["run", feature.path, "--data", data], input: "big\n")
    #expect(big.status == 1)
    #expect(
      big.errors.contains(
        "error: the state could not be saved: state: 1000003 fields (of every table, counted "
          + "together) are more than the 1000000 a data file holds"), "\(big.errors)")
    let next = try Command.run(["run", feature.path, "--data", data], input: "inc\n")
    #expect(next.status == 0, "\(next.errors)")
    #expect(next.output.contains("+ n = 2"), "\(next.output)")
    #expect(!next.errors.contains("not loaded"), "\(next.errors)")
  }

  /// A feature's file name is in its saved file's header and a written test's first line: a
  /// carriage return in it (which ends a comment line in Lua and in Swift) is written as `\r`,
  /// so the rest of the name stays a comment. `lua5.4` loads the file to the state, running
  /// nothing, and the next start restores it.
  @Test func aCarriageReturnInAFeaturesNameWritesNoCode() throws {
    let directory = try makeTemporaryDirectory("cr-name")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("w\rerror(\"INJECTED\")--.lua")
    try Self.bag.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    let first = try Command.run(["run", feature.path, "--data", data.path], input: "inc\n")
    #expect(first.status == 0, "\(first.errors)")
    #expect(first.output.hasPrefix(#"w\rerror("INJECTED")--.lua loaded"#), "\(first.output)")
    let saved = data.appendingPathComponent("bag.saved.lua")
    let text = try String(contentsOf: saved, encoding: .utf8)
    #expect(!text.contains("\r"), "\(text)")
    #expect(text.contains(#"-- The state w\rerror("INJECTED")--.lua saved."#), "\(text)")
    let loaded = try PlainLua.output(of: "local t = dofile(\"\(saved.path)\") print(t.n)")
    #expect(loaded == "1\n")
    let second = try Command.run(["run", feature.path, "--data", data.path], input: "inc\n")
    #expect(second.status == 0, "\(second.errors)")
    #expect(second.output.contains("+ n = 2"), "\(second.output)")
  }

  /// The tests `:test` writes hold a carriage return nowhere a comment would end at it: not
  /// from the feature's name in their first line (a Swift test names any file; a Lua test
  /// only a module, which holds none), not from an error message in the note on an action left
  /// out (the feature's, so any bytes).
  @Test func writtenTestsKeepCarriageReturnsOutOfComments() throws {
    let directory = try makeTemporaryDirectory("cr-tests")
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = """
      return {
        initial_state = function() return { n = 0 } end,
        reduce = function(state, action)
          if action.type == "boom" then error("boom\\rerror('INJECTED')--", 0) end
          if action.type == "inc" then state.n = state.n + 1 end
        end,
      }
      """
    let oddName = "w\rerror(\"INJECTED\")--.lua"
    for name in [oddName, "boom.lua"] {
      try source.write(
        to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    let odd = try Command.run(
      ["repl", oddName, "--data", "data"], input: "inc\n:test WTests.swift\n", in: directory)
    #expect(odd.output.contains("wrote WTests.swift"), "\(odd.output)")
    let swift = try String(
      contentsOf: directory.appendingPathComponent("WTests.swift"), encoding: .utf8)
    #expect(!swift.contains("\r"), "\(swift)")
    #expect(swift.contains(#"on w\rerror("INJECTED")--.lua."#), "\(swift)")
    let boom = try Command.run(
      ["repl", "boom.lua", "--data", "data2"],
      input: "inc\nboom\n:test boom_test.lua\n:test BoomTests.swift\n", in: directory)
    for test in ["boom_test.lua", "BoomTests.swift"] {
      let text = try String(
        contentsOf: directory.appendingPathComponent(test), encoding: .utf8)
      #expect(!text.contains("\r"), "\(test): \(text)")
      #expect(text.contains(#"boom\rerror('INJECTED')--"#), "\(test): \(text)")
    }
    #expect(boom.output.contains("it passes"), "\(boom.output)")
  }

  /// `:test` writes no test that cannot work: a Swift suite named by a keyword or by a name the
  /// test itself uses (`TestStore`: the test found its own suite there), a Lua test of a
  /// feature whose file name is no module name (`x.y.lua` is required as `x/y.lua`, another
  /// file, which the test would have tested).
  @Test func testNamesThatCannotWorkAreRefused() throws {
    let (directory, _) = try folder("test-names")
    defer { try? FileManager.default.removeItem(at: directory) }
    let manager = FileManager.default
    try manager.copyItem(
      at: directory.appendingPathComponent("bag.lua"),
      to: directory.appendingPathComponent("x.y.lua"))
    let swift = try Command.run(
      ["repl", "bag.lua", "--data", "data"],
      input: "inc\n:test class.swift\n:test _.swift\n:test TestStore.swift\n:test URL.swift\n"
        + ":test BagTests.swift\n",
      in: directory)
    let errors = swift.output.components(separatedBy: "\n").filter { $0.contains("error:") }
    #expect(
      errors == [
        "  error: class.swift: the file's name is the test suite's, so it must be a Swift name "
          + "that is no keyword (:test SessionTests.swift)",
        "  error: _.swift: the file's name is the test suite's, so it must be a Swift name that "
          + "is no keyword (:test SessionTests.swift)",
        "  error: TestStore.swift: TestStore is a name the test uses, so the suite cannot have "
          + "it. To fix, choose another (:test SessionTests.swift)",
        "  error: URL.swift: URL is a name the test uses, so the suite cannot have it. To fix, "
          + "choose another (:test SessionTests.swift)",
      ], "\(swift.output)")
    for name in ["class", "_", "TestStore", "URL"] {
      #expect(!manager.fileExists(atPath: directory.appendingPathComponent(name + ".swift").path))
    }
    #expect(manager.fileExists(atPath: directory.appendingPathComponent("BagTests.swift").path))
    let lua = try Command.run(
      ["repl", "x.y.lua", "--data", "data2"], input: "inc\n:test xy_test.lua\n", in: directory)
    #expect(
      lua.output.contains(
        "error: x.y.lua: a Lua test finds its feature by module name, and this file's name is "
          + "none"), "\(lua.output)")
    #expect(!manager.fileExists(atPath: directory.appendingPathComponent("xy_test.lua").path))
  }

  /// `:save` writes a new file or over a session; a feature's code, a folder, a link and a FIFO
  /// are refused, said why, and left as they were.
  @Test func saveWritesOverSessionsOnly() throws {
    let (directory, feature) = try folder("save-over")
    defer { try? FileManager.default.removeItem(at: directory) }
    let manager = FileManager.default
    try manager.createDirectory(
      at: directory.appendingPathComponent("folder"), withIntermediateDirectories: false)
    try manager.createSymbolicLink(
      atPath: directory.appendingPathComponent("link.lua").path, withDestinationPath: "bag.lua")
    #expect(mkfifo(directory.appendingPathComponent("fifo.lua").path, 0o600) == 0)
    // Code that starts as a session's header does: only a file a replay reads is one.
    let lookalike = directory.appendingPathComponent("lookalike.lua")
    try ("-- A ComposableLua session? No: code.\n" + Self.bag).write(
      to: lookalike, atomically: true, encoding: .utf8)
    let session = directory.appendingPathComponent("s.lua")
    let outcome = try Command.run(
      ["repl", "bag.lua", "--data", "data"],
      input: "inc\n:save bag.lua\n:save folder\n:save link.lua\n:save fifo.lua\n"
        + ":save lookalike.lua\n:save s.lua\ninc\n:save s.lua\n",
      in: directory)
    let refusals = outcome.output.components(separatedBy: "\n").filter {
      $0.contains("the session was not saved")
    }
    #expect(
      refusals == [
        "  error: the session was not saved: bag.lua exists and is not a session, and :save "
          + "writes over sessions only. To fix, choose another name, or remove it first",
        "  error: the session was not saved: folder is a folder. To fix, name a file in it "
          + "(:save folder/session.lua)",
        "  error: the session was not saved: link.lua is a symbolic link, and :save does not "
          + "write through one. To fix, choose another name, or remove it first",
        "  error: the session was not saved: fifo.lua is not a regular file. To fix, choose "
          + "another name, or remove it first",
        "  error: the session was not saved: lookalike.lua exists and is not a session, and "
          + ":save writes over sessions only. To fix, choose another name, or remove it first",
      ], "\(outcome.output)")
    #expect(try String(contentsOf: lookalike, encoding: .utf8).hasSuffix(Self.bag))
    #expect(try String(contentsOf: feature, encoding: .utf8) == Self.bag)
    #expect(outcome.output.contains("saved 2 actions to s.lua"), "\(outcome.output)")
    let replay = try Command.run(["replay", session.path], in: directory)
    #expect(replay.output.contains("n = 2"), "\(replay.output) \(replay.errors)")
  }

  /// A save replaces its file with a new one, which keeps the permissions the old one had: a
  /// saved state or a session its owner made private stays private.
  @Test func aSaveKeepsThePermissionsOfTheFileItReplaces() throws {
    let (directory, feature) = try folder("modes")
    defer { try? FileManager.default.removeItem(at: directory) }
    let data = directory.appendingPathComponent("data")
    let saved = data.appendingPathComponent("bag.saved.lua")
    _ = try Command.run(["run", feature.path, "--data", data.path], input: "inc\n")
    for mode in [0o600, 0o640, 0o444] {
      #expect(chmod(saved.path, mode_t(mode)) == 0)
      let run = try Command.run(["run", feature.path, "--data", data.path], input: "inc\n")
      #expect(run.status == 0, "\(run.errors)")
      let after = try FileManager.default.attributesOfItem(atPath: saved.path)
      #expect((after[.posixPermissions] as? Int) == mode, "\(after)")
    }
    let session = directory.appendingPathComponent("s.lua")
    _ = try Command.run(
      ["repl", "bag.lua", "--data", "data"], input: "inc\n:save s.lua\n", in: directory)
    #expect(chmod(session.path, 0o600) == 0)
    let again = try Command.run(
      ["repl", "bag.lua", "--data", "data"], input: "inc\n:save s.lua\n", in: directory)
    #expect(again.output.contains("saved 1 action to s.lua"), "\(again.output)")
    let after = try FileManager.default.attributesOfItem(atPath: session.path)
    #expect((after[.posixPermissions] as? Int) == 0o600)
  }

  /// `composable new` takes the names `require` takes: ASCII letters (`café` was written, and
  /// its test failed at once).
  @Test func newTakesTheNamesRequireTakes() throws {
    let directory = try makeTemporaryDirectory("new-names")
    defer { try? FileManager.default.removeItem(at: directory) }
    for name in ["café", "naïve", "Ωmega", "x٣"] {
      let outcome = try Command.run(["new", name], in: directory)
      #expect(outcome.status == 64, "\(name): \(outcome.errors)")
      #expect(
        outcome.errors.contains(
          "\(name): a feature's name is a Lua module name: letters a-z and A-Z, digits and _"),
        "\(outcome.errors)")
      #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path))
    }
  }

  /// `new` writes every file or none: a name whose test's file no system takes (250 letters:
  /// `NAME_test.lua` is past 255 bytes) left a folder with half of them, and one at a link to
  /// nowhere failed in Foundation's words. The longest name that fits is written whole.
  @Test func newWritesEveryFileOrNone() throws {
    let directory = try makeTemporaryDirectory("new-whole")
    defer { try? FileManager.default.removeItem(at: directory) }
    let long = String(repeating: "a", count: 250)
    let refused = try Command.run(["new", long], in: directory)
    #expect(refused.status == 64, "\(refused.errors)")
    #expect(
      refused.errors.contains(
        "aaaaaaaaaaaaaaaaaaaa...: a feature's name is at most 246 characters (250 given), so that "
          + "its test's file, NAME_test.lua, is a file name the system takes"), "\(refused.errors)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])

    try FileManager.default.createSymbolicLink(
      atPath: directory.appendingPathComponent("dangling").path, withDestinationPath: "/nowhere")
    let linked = try Command.run(["new", "dangling"], in: directory)
    #expect(linked.status == 64, "\(linked.errors)")
    #expect(linked.errors.contains("dangling already exists; nothing was written"))

    let longest = String(repeating: "b", count: 246)
    let written = try Command.run(["new", longest], in: directory)
    #expect(written.status == 0, "\(written.errors)")
    let folder = directory.appendingPathComponent(longest)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(
      names == [
        ".composable", ".luacheckrc", ".luarc.json", longest + ".lua",
        longest + "_test.lua",
      ])
    // Nothing beside it: the folder it was written in was renamed.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        == [longest, "dangling"].sorted())
  }
}
