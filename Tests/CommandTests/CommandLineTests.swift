import ChildProcesses
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// The `composable` command as a person runs it: the built executable, its output and its exit
/// codes.
@Suite struct CommandLineTests {
  @Test func runReadsActionsAndPrintsEachChange() throws {
    let outcome = try Command.run(
      ["run", "examples/counter/counter.lua", "--wait", "0"], input: "increment\n:quit\n")
    #expect(outcome.status == 0)
    // Lua syntax, Lua paths, and no colour into a pipe.
    #expect(
      outcome.output == """
        counter.lua loaded. State: { count = 0 }
        Type actions, one per line: a word (increment) or a table ({ type = "add", n = 1 }).
        received action:
          "increment"
          − count = 0
          + count = 1

        """)
  }

  /// On a terminal (util-linux's `script` gives the command one) the diff is red and green,
  /// unless `NO_COLOR` is set.
  @Test(arguments: [false, true]) func onATerminalTheDiffIsColouredUnlessNoColor(
    noColor: Bool
  )
    throws
  {
    let command =
      try builtProduct("composable").path
      + " run examples/counter/counter.lua --wait 0"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    process.arguments = ["-qec", command, "/dev/null"]
    process.currentDirectoryURL = repositoryRoot
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = noColor ? "1" : nil
    process.environment = environment
    let stdin = Pipe(), stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    stdin.fileHandleForWriting.write(Data("increment\n:quit\n".utf8))
    try stdin.fileHandleForWriting.close()
    let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    if noColor {
      #expect(output.contains("− count = 0\r\n  + count = 1\r\n"))
      #expect(!output.contains("\u{1B}"))
    } else {
      #expect(
        output.contains(
          "\u{1B}[31m− count = 0\u{1B}[0m\r\n  \u{1B}[32m+ count = 1\u{1B}[0m\r\n"))
    }
  }

  /// `--env` values are Lua literals, or text when they are not one; `--uuid incrementing` and
  /// `--seed` make a session repeatable, so a piped session can name the todo it just added.
  @Test func envValuesAreLuaLiteralsAndSessionsCanBeRepeated() throws {
    let directory = try makeTemporaryDirectory("cli")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("env.lua")
    try """
    return {
      initial_state = function() return {} end,
      reduce = function(state, action, env)
        if action.type == "show" then
          for _, name in ipairs({ "debug", "n", "ratio", "tags", "name", "quoted", "url", "empty",
              "date", "phone", "sum", "call", "negative", "hex", "huge" }) do
            state[name] = env[name]
          end
        elseif action.type == "ids" then
          state.id, state.roll = env.uuid(), env.random(1000000)
        end
      end,
    }
    """.write(to: feature, atomically: true, encoding: .utf8)
    let arguments = [
      "run", feature.path, "--wait", "0", "--uuid", "incrementing", "--seed", "7",
      "--env", "debug=false", "--env", "n=3", "--env", "ratio=2.5", "--env", #"tags={"a","b"}"#,
      "--env", "name=ada", "--env", #"quoted="3""#, "--env", "url=http://127.0.0.1:1/x?q=",
      "--env", "empty=",
      // Not literals: the text, never computed (2018, -679, 2) nor run.
      "--env", "date=2024-01-05", "--env", "phone=555-1234", "--env", "sum=1+1",
      "--env", "call=os.exit(3)", "--env", "huge=math.huge * 2",
      "--env", "negative=-3", "--env", "hex=0x10",
    ]
    let first = try Command.run(arguments, input: "show\nids\nids\n")
    #expect(first.status == 0, "\(first.errors)")
    #expect(
      first.output.contains(
        """
          + call = "os.exit(3)"
          + date = "2024-01-05"
          + debug = false
          + empty = ""
          + hex = 16
          + huge = "math.huge * 2"
          + n = 3
          + name = "ada"
          + negative = -3
          + phone = "555-1234"
          + quoted = "3"
          + ratio = 2.5
          + sum = "1+1"
          + tags = { "a", "b" }
          + url = "http://127.0.0.1:1/x?q="
        """), "\(first.output)")
    #expect(first.output.contains(#"+ id = "00000000-0000-0000-0000-000000000000""#))
    #expect(first.output.contains(#"+ id = "00000000-0000-0000-0000-000000000001""#))
    let second = try Command.run(arguments, input: "show\nids\nids\n")
    #expect(second.output == first.output)
    let unseeded = try Command.run(
      ["run", feature.path, "--wait", "0", "--uuid", "incrementing"], input: "ids\n")
    #expect(!unseeded.output.isEmpty)
    let bad = try Command.run(["run", feature.path, "--env", "=1"])
    #expect(bad.status == 64)
    #expect(bad.errors.contains("--env =1: expected NAME=VALUE"))
  }

  /// Effects still running when the input ends and --wait is over are stopped, and run says
  /// so; a REPL command piped to run is an error that says where it works.
  @Test func whatTheWaitCutsOffIsSaid() throws {
    let outcome = try Command.run(
      [
        "run", "examples/syncups/syncups.lua", "--wait", "0", "--data",
        NSTemporaryDirectory()
          + "cut-\(UUID().uuidString)",
      ],
      input: """
        { type = "path", push = { screen = "record", state = { syncup = { minutes = 1, \
        attendees = { { id = "a", name = "A" } }, meetings = {} }, seconds_elapsed = 0, \
        speaker_index = 1 } } }
        { type = "path", id = 1, action = "on_appear" }
        :advance 1

        """)
    #expect(outcome.status == 2, "\(outcome.errors)")  // the line `:advance 1` is no action
    #expect(
      outcome.errors.contains(
        """
        warning: the input ended and 1 effect was still running after waiting --wait 0 s \
        (effect.every with id { id = "timer", scope = { element = 1, stack = "path" } }); it was \
        stopped. To let effects finish, pass a longer --wait SECONDS, or end the input with :quit \
        to stop them at once; to drive time yourself, use composable repl --paused and :advance
        """), "\(outcome.errors)")
    #expect(
      outcome.errors.contains(
        "(`run` takes actions and :quit; commands such as :advance and :state are the REPL's"),
      "\(outcome.errors)")
    // The REPL's `= EXPRESSION`, piped: said where it works (it read as a syntax error alone).
    let shown = try Command.run(["run", "examples/counter/counter.lua"], input: "= state\n")
    #expect(
      shown.errors.contains(
        "\n  (`= EXPRESSION` shows a value in the REPL only: composable repl FEATURE)\n"),
      "\(shown.errors)")
  }

  /// `:quit` stops at once: the effects still running are stopped without waiting for --wait
  /// (said in a note, not the warning of effects --wait cut off), and the save still waiting out
  /// its debounce is written then.
  @Test func quitStopsAtOnceAndWritesTheSaveThatWaits() throws {
    let (directory, _, _) = try Self.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("ticking.lua")
    try """
    local composable = require("composable")
    local effect = require("composable.effect")
    return {
      persist = composable.persist{ path = "ticking.saved.lua", debounce = 30 },
      initial_state = function() return { ticks = 0, started = false } end,
      reduce = function(state, action)
        if action.type == "start" then
          state.started = true
          return effect.every(0.05, "tick")
        elseif action.type == "tick" then state.ticks = state.ticks + 1 end
      end,
    }
    """.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    let quit = try Command.run(
      ["run", feature.path, "--wait", "20", "--data", data.path], input: "start\n:quit\n")
    #expect(quit.status == 0, "\(quit.errors)")
    #expect(!quit.errors.contains("warning"), "\(quit.errors)")
    // Said, not dropped without a word (a new user's finding: the rolls they waited for never
    // came, and nothing said why).
    #expect(
      quit.errors.contains(
        "note: :quit stopped 1 effect still running (effect.every). To let effects finish, end "
          + "the input without :quit: the run then waits --wait SECONDS (5 by default) for them"),
      "\(quit.errors)")
    let saved = try String(
      contentsOf: data.appendingPathComponent("ticking.saved.lua"), encoding: .utf8)
    #expect(saved.contains("started = true"), "\(saved)")
    // The end of the input, without :quit: the timer gets --wait and is said to be cut off; the
    // save waiting out its 30 s debounce is no effect to wait for or to name.
    let ended = try Command.run(
      ["run", feature.path, "--wait", "0.2", "--data", data.path], input: "start\n")
    #expect(ended.errors.contains("1 effect was still running"), "\(ended.errors)")
    #expect(ended.errors.contains("(effect.every)"), "\(ended.errors)")
  }

  /// A feature without `persist` still has its files, under its data directory, which is made
  /// only when the feature first writes.
  @Test func everyFeatureHasItsFilesUnderItsDataDirectory() throws {
    let directory = try makeTemporaryDirectory("cli")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("notes.lua")
    try """
    local effect = require("composable.effect")
    return {
      initial_state = function() return {} end,
      reduce = function(state, action)
        if action.type == "save" then
          return effect.file.write{ path = "notes.json", json = true, data = { n = 1 } }
        elseif action.type == "load" then
          return effect.file.read{ path = "notes.json", json = true, response = "loaded" }
        elseif action.type == "loaded" then
          state.notes = action.ok and action.data or action.error
        end
      end,
    }
    """.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    let quiet = try Command.run(
      ["run", feature.path, "--data", data.path, "--wait", "1"], input: "load\n")
    #expect(quiet.output.contains(#"+ notes = "notes.json: no such file""#), "\(quiet.output)")
    #expect(!FileManager.default.fileExists(atPath: data.path))
    // The write is an effect: the session ends only when it is done, and the next one reads.
    let saved = try Command.run(
      ["run", feature.path, "--data", data.path, "--wait", "1"], input: "save\n")
    #expect(saved.status == 0, "\(saved.errors)")
    let outcome = try Command.run(
      ["run", feature.path, "--data", data.path, "--wait", "1"], input: "load\n")
    #expect(outcome.output.contains("+ notes = { n = 1 }"), "\(outcome.output)")
    #expect(
      try String(contentsOf: data.appendingPathComponent("notes.json"), encoding: .utf8)
        == #"{"n":1}"#)
  }

  /// `composable run --watch`: hot reload without a terminal, one line per reload.
  @Test func runWatchReloadsOnSave() throws {
    let directory = try makeTemporaryDirectory("cli")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tick.lua")
    let source = """
      return {
        initial_state = function() return { n = 0 } end,
        reduce = function(state, action) if action.type == "tick" then state.n = state.n + 1 end end,
      }
      """
    try source.write(to: feature, atomically: false, encoding: .utf8)
    let run = try WatchedRun(feature: feature, data: directory)
    run.type("tick")
    #expect(run.waitFor("+ n = 1"))
    try source.replacingOccurrences(of: "state.n + 1", with: "state.n + 10")
      .write(to: feature, atomically: true, encoding: .utf8)
    #expect(run.waitFor("reloaded tick.lua in "))
    run.type("tick")
    #expect(run.waitFor("+ n = 11"))
    #expect(try run.end() == 0)
    #expect(run.output.components(separatedBy: "reloaded tick.lua").count == 2)
  }

  @Test func aBrokenFeatureIsItsErrorAndAFailureNotTheUsage() throws {
    let directory = try makeTemporaryDirectory("cli")
    defer { try? FileManager.default.removeItem(at: directory) }
    let broken = directory.appendingPathComponent("broken.lua")
    try "return {\n".write(to: broken, atomically: true, encoding: .utf8)
    let outcome = try Command.run(["run", broken.path])
    #expect(outcome.status == 1)
    #expect(
      outcome.errors == """
        error: broken.lua did not load: syntax error: broken.lua:2: unexpected symbol near <eof>

        """)
  }

  /// `composable test` on a path that is not there fails, saying so: a typo in CI must not
  /// pass with no tests run.
  @Test func testingAPathThatIsNotThereFails() throws {
    let directory = try makeTemporaryDirectory("cli")
    defer { try? FileManager.default.removeItem(at: directory) }
    let outcome = try Command.run(["test", "nothere"], in: directory)
    #expect(outcome.status == 1)
    #expect(
      outcome.errors == "error: nothere: no such file or folder, so no tests were run from it\n")
  }

  /// A run of no test fails, saying why: a folder with no test file (the current one too), a
  /// `--filter` that matches no test's name, files that declare none. A file named twice runs
  /// once.
  @Test func aRunOfNoTestFailsSayingWhy() throws {
    let directory = try makeTemporaryDirectory("cli")
    defer { try? FileManager.default.removeItem(at: directory) }
    let tests = directory.appendingPathComponent("t")
    try FileManager.default.createDirectory(
      at: directory.appendingPathComponent("empty/t"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: tests, withIntermediateDirectories: true)
    try #"describe("a", function() it("b", function() end) end)"#.write(
      to: tests.appendingPathComponent("a_test.lua"), atomically: true, encoding: .utf8)
    try "local unused = 1".write(
      to: tests.appendingPathComponent("none_test.lua"), atomically: true, encoding: .utf8)
    // A feature named in place of its tests: with them beside it, and alone.
    for name in ["none.lua", "lone.lua", "a b.lua", "x_test.lua.bak"] {
      try "return { initial_state = function() return {} end, reduce = function() end }".write(
        to: tests.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    let cases: [(arguments: [String], in: String, error: String)] = [
      (
        ["test", "empty"], "",
        "error: empty: no *_test.lua file under it, so no tests were run from it. To fix, name "
          + "a test file or a folder that holds one\n"
      ),
      (
        ["test"], "empty",
        "error: the current folder (searched when no path is given): no *_test.lua file under "
          + "it, so no tests were run from it. To fix, name a test file or a folder that holds "
          + "one\n"
      ),
      (
        ["test", "t", "--filter", "zzz"], "",
        "error: no test's name contains \"zzz\" (--filter), in 2 test files\n"
      ),
      (
        ["test", "t/none_test.lua"], "",
        "error: 1 test file ran, and declared no test (describe/it)\n"
      ),
      (
        ["test", "t/a_test"], "",
        "error: t/a_test: no such file or folder, so no tests were run from it. To fix, give its "
          + "name whole: composable test t/a_test.lua\n"
      ),
      (
        ["test", "t/none.lua"], "",
        "error: t/none.lua ran, and declared no test (describe/it): it is not a test file (their "
          + "names end in _test.lua). To fix, run composable test t/none_test.lua, the test file "
          + "beside it\n"
      ),
      (
        ["test", "a b.lua"], "t",
        "error: a b.lua ran, and declared no test (describe/it): it is not a test file (their "
          + "names end in _test.lua). To fix, write its tests in 'a b_test.lua' (describe/it; see "
          + "the README's \"Testing a Lua feature in Lua\")\n"
      ),
      (
        ["test", "x_test.lua.bak"], "t",
        "error: x_test.lua.bak ran, and declared no test (describe/it): it is not a test file "
          + "(their names end in _test.lua)\n"
      ),
      (
        ["test", "lone.lua"], "t",
        "error: lone.lua ran, and declared no test (describe/it): it is not a test file (their "
          + "names end in _test.lua). To fix, write its tests in lone_test.lua (describe/it; see "
          + "the README's \"Testing a Lua feature in Lua\")\n"
      ),
    ]
    for (arguments, folder, error) in cases {
      let outcome = try Command.run(
        arguments, in: directory.appendingPathComponent(folder, isDirectory: true))
      #expect(outcome.status == 1, "\(arguments)")
      #expect(outcome.errors == error, "\(arguments)")
    }
    let twice = try Command.run(["test", "t/a_test.lua", "t", "./t/a_test.lua"], in: directory)
    #expect(twice.status == 0, "\(twice.errors)")
    #expect(twice.output == "✓ a b\n1 passed, 0 failed\n")
  }

  /// A word that names neither a subcommand nor a file, but is close to a subcommand, is taken
  /// for a typo of it, not for a feature that is missing.
  @Test func aMistypedSubcommandIsSaidToBeOne() throws {
    let directory = try makeTemporaryDirectory("cli")
    defer { try? FileManager.default.removeItem(at: directory) }
    let outcome = try Command.run(["tset"], in: directory)
    #expect(outcome.status == 64)
    #expect(
      outcome.errors
        == "error: 'tset' is neither a subcommand nor a file (did you mean 'test'?)\n"
        + "  See 'composable --help' for the subcommands.\n")
    // A file of that name is a feature, as ever.
    try "return { reduce = function() end }".write(
      to: directory.appendingPathComponent("tset"), atomically: true, encoding: .utf8)
    #expect(try Command.run(["tset"], in: directory).status == 0)
  }

  @Test func versionSaysTheToolsAndItsLuas() throws {
    let outcome = try Command.run(["--version"])
    #expect(outcome.status == 0)
    #expect(outcome.output == "composable 0.1.0 (Lua \(LuaVM.luaRelease))\n")
    #expect(LuaVM.luaRelease.hasPrefix("5.4."))
  }

  /// A line that is no action (broken, or nested past what Lua's parser takes) is an error
  /// that says so, and the session goes on with the next line; the exit status says it failed.
  @Test func aLineThatIsNoActionIsAnErrorAndTheSessionGoesOn() throws {
    let deep = String(repeating: "{", count: 700) + String(repeating: "}", count: 700)
    let outcome = try Command.run(
      ["run", "examples/counter/counter.lua", "--wait", "0"],
      input: "{ type = \n\(deep)\nincrement\n")
    #expect(outcome.status == 2)
    #expect(
      outcome.errors == """
        error: line 1 of the input: the line is not an action (a word, or a Lua table): syntax \
        error: unexpected symbol near <eof>
          (piped, `run` reads an action a line: write it on one line, or pipe it to composable \
        repl FEATURE, which reads a table on over the lines that follow)
        error: line 2 of the input: the line is not an action (a word, or a Lua table): C stack \
        overflow
        error: 2 lines were not actions; the other lines ran (exit status 2)

        """)
    #expect(outcome.output.contains("+ count = 1"))
  }

  @Test func evalOfATableTenThousandDeepIsAnErrorNotACrash() throws {
    let directory = try makeTemporaryDirectory("cli")
    defer { try? FileManager.default.removeItem(at: directory) }
    let deep = directory.appendingPathComponent("deep.lua")
    try """
    local t = {} local level = t
    for _ = 1, 10000 do level.x = {} level = level.x end
    return t
    """.write(to: deep, atomically: true, encoding: .utf8)
    let outcome = try Command.run(["eval", deep.path])
    #expect(outcome.status == 1)
    #expect(outcome.errors.hasPrefix("error: result #1.x.x.x"))
    #expect(outcome.errors.hasSuffix(".x.x: nested more than 200 levels deep\n"))
    #expect(outcome.errors.count < 200)  // the path shortened, not 200 levels of it
  }

  @Test func aWaitThatIsNoNumberOfSecondsIsAUsageError() throws {
    let outcome = try Command.run(["run", "examples/counter/counter.lua", "--wait", "nan"])
    #expect(outcome.status == 64)
    #expect(
      outcome.errors.hasPrefix(
        "error: --wait: expected a number of seconds from 0 to 1e9, got nan"))
  }

  @Test func evalPrintsResultsAndFailsWithTheLuaError() throws {
    let directory = try makeTemporaryDirectory("cli")
    defer { try? FileManager.default.removeItem(at: directory) }
    let good = directory.appendingPathComponent("good.lua")
    try "return 1 + 1, { a = true }".write(to: good, atomically: true, encoding: .utf8)
    let outcome = try Command.run(["eval", good.path])
    #expect(outcome.status == 0)
    #expect(outcome.output == "2\n{ a = true }\n")
    let bad = directory.appendingPathComponent("bad.lua")
    try "error('boom')".write(to: bad, atomically: true, encoding: .utf8)
    let failure = try Command.run(["eval", bad.path])
    #expect(failure.status == 1)
    #expect(failure.errors.hasPrefix("error: bad.lua:1: boom"))
    // A file it cannot read is exit 1, as for `run` (64 said the arguments were malformed).
    let missing = directory.appendingPathComponent("missing.lua").path
    let gone = try Command.run(["eval", missing])
    #expect(gone.status == 1)
    #expect(gone.errors == "error: cannot read \(missing): no such file\n")
  }

  @Test func testReportsAndItsExitCodeSaysWhetherEverythingPassed() throws {
    let passing = try Command.run(["test", "examples/counter"])
    #expect(passing.status == 0)
    #expect(passing.output.hasSuffix("3 passed, 0 failed\n"))
    let failing = try Command.run(["test", "Tests/ComposableLuaTests/fixtures/failing"])
    #expect(failing.status == 1)
    #expect(failing.output.contains(" failed"))
    let tap = try Command.run(["test", "examples/counter", "--output", "tap"])
    #expect(tap.status == 0)
    #expect(tap.output.hasPrefix("TAP version 13\n1..3\nok 1 "))
  }

  static let notes = """
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "notes.saved.lua", debounce = 1 },
      initial_state = function() return { notes = {} } end,
      reduce = function(state, action)
        if action.type == "add" then table.insert(state.notes, action.text) end
      end,
    }
    """

  /// The file `notes` saves holding `note`: its header names the code that saved it.
  static func savedNotes(_ texts: String...) throws -> String {
    let code = try LuaFeature(source: notes, file: "notes.lua").codeFingerprint
    return """
      -- The state notes.lua saved. composable reads it back as Lua data: literals only.
      -- code: \(code) (the code that saved it: other code runs its migrate(state) on it)
      return {
        notes = { \(texts.map { "\"\($0)\"" }.joined(separator: ", ")) },
      }

      """
  }

  /// A directory with the notes feature, and where it keeps its file.
  static func notesFeature() throws -> (directory: URL, feature: URL, saved: URL) {
    let directory = try makeTemporaryDirectory("cli")
    let feature = directory.appendingPathComponent("notes.lua")
    try notes.write(to: feature, atomically: true, encoding: .utf8)
    return (directory, feature, directory.appendingPathComponent("data/notes.saved.lua"))
  }

  /// Without `--data`, the data goes to `$XDG_DATA_HOME/composable/NAME`, or to
  /// `$HOME/.local/share/composable/NAME` when XDG_DATA_HOME is unset, empty or relative (never
  /// into the folder the command runs in).
  @Test(arguments: [nil, "", "relative/data", "/ABSOLUTE"])
  func theDataGoesWhereXDGSays(xdg: String?) throws {
    let (directory, feature, _) = try Self.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let home = directory.appendingPathComponent("home")
    let absolute = directory.appendingPathComponent("xdg")
    let work = directory.appendingPathComponent("work")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let outcome = try Command.run(
      ["run", feature.path, "--wait", "0"], input: #"{ type = "add", text = "tea" }"# + "\n",
      in: work,
      environment: [
        "HOME": home.path, "XDG_DATA_HOME": xdg == "/ABSOLUTE" ? absolute.path : xdg,
      ])
    #expect(outcome.status == 0, "\(outcome.errors)")
    let base = xdg == "/ABSOLUTE" ? absolute : home.appendingPathComponent(".local/share")
    let saved = base.appendingPathComponent("composable/notes/notes.saved.lua")
    #expect(try String(contentsOf: saved, encoding: .utf8) == (try Self.savedNotes("tea")))
    #expect(try FileManager.default.contentsOfDirectory(atPath: work.path) == [])
  }

  @Test func aSaveStillWaitingIsWrittenWhenTheInputEnds() throws {
    let (directory, feature, saved) = try Self.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let data = directory.appendingPathComponent("data").path
    let outcome = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", data],
      input: #"{ type = "add", text = "milk" }"# + "\n")
    #expect(outcome.status == 0)
    #expect(try String(contentsOf: saved, encoding: .utf8) == (try Self.savedNotes("milk")))
    // And it comes back on the next start.
    let again = try Command.run(["run", feature.path, "--wait", "0", "--data", data])
    #expect(again.output.contains(#"State: { notes = { "milk" } }"#))
  }

  @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
  func aSaveStillWaitingIsWrittenOnASignal(signalNumber: Int32) throws {
    let (directory, feature, saved) = try Self.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try RunningNotes(feature: feature, in: directory)
    // Once the action is shown, its change is in the state and its save is waiting.
    #expect(run.add("bread"))
    kill(run.pid, signalNumber)
    run.process.waitUntilExit()
    #expect(run.process.terminationStatus == 128 + signalNumber)
    #expect(try String(contentsOf: saved, encoding: .utf8) == (try Self.savedNotes("bread")))
    let name = [
      SIGTERM: "SIGTERM", SIGINT: "SIGINT (Ctrl-C)", SIGHUP: "SIGHUP (the terminal closed)",
    ]
    #expect(
      run.lastError
        == "error: stopped by \(name[signalNumber]!): the state was saved (exit status "
        + "\(128 + signalNumber))")
  }

  /// A run started ignoring SIGHUP (`nohup`) keeps ignoring it: it outlives its terminal, runs
  /// the actions that come after, and ends at the end of its input (it ended at the hang-up).
  @Test func aRunUnderNohupOutlivesItsTerminal() throws {
    let (directory, feature, saved) = try Self.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try RunningNotes(feature: feature, in: directory, underNohup: true)
    #expect(run.add("bread"))
    kill(run.pid, SIGHUP)
    #expect(run.add("milk"))
    try run.stdin.fileHandleForWriting.close()
    run.process.waitUntilExit()
    #expect(run.process.terminationStatus == 0, "\(run.errors)")
    #expect(try String(contentsOf: saved, encoding: .utf8) == (try Self.savedNotes("bread", "milk")))
  }

  /// A save that fails is said once however often it fails the same way: the debounced save's
  /// failure, then the signal's save (it said both, word for word).
  @Test func aSaveThatFailsTheSameWayIsSaidOnce() throws {
    let (directory, feature, _) = try Self.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try RunningNotes(feature: feature, in: directory)
    #expect(run.add("bread"))
    // The data directory cannot be made now: a file is where it would be (before the save,
    // which waits a second; a run that sees it at start stops before its first action).
    try "x".write(
      to: directory.appendingPathComponent("data"), atomically: true, encoding: .utf8)
    usleep(2_500_000)  // well past the save's debounce (1 s): that save fails, and says so
    kill(run.pid, SIGTERM)
    run.process.waitUntilExit()
    #expect(run.process.terminationStatus == 128 + SIGTERM)
    let errors = run.errors
    #expect(
      errors.components(separatedBy: "could not be saved in the data").count == 2, "\(errors)")
    #expect(
      errors.split(separator: "\n").last
        == "error: stopped by SIGTERM, and the state could not be saved (exit status 143)")
  }

  /// A signal's save that finds the file changed by another writer goes beside it, and the
  /// last line says so (it said "the state was saved", under the line saying otherwise).
  /// A feature named without its `.lua` (`composable run notes`), where `notes.lua` is there.
  @Test func aFeatureNamedWithoutLuaSaysTheFile() throws {
    let (directory, _, _) = try Self.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let outcome = try Command.run(["run", "notes", "--data", "data"], in: directory)
    #expect(outcome.status == 1)
    #expect(outcome.errors.hasSuffix("cannot read it: no such file (did you mean notes.lua?)\n"))
    let none = try Command.run(["run", "nothing", "--data", "data"], in: directory)
    #expect(none.status == 1)
    #expect(!none.errors.contains("did you mean"), "\(none.errors)")
    // A folder: the feature file named after it, or the one feature file in it.
    let folder = try Command.run(["run", "examples/counter", "--wait", "0"])
    #expect(folder.errors.hasSuffix("give the .lua file (did you mean examples/counter/counter.lua?)\n"))
    let lone = directory.appendingPathComponent("lone")
    try FileManager.default.createDirectory(at: lone, withIntermediateDirectories: true)
    try "return {}".write(to: lone.appendingPathComponent("app.lua"), atomically: true, encoding: .utf8)
    try "".write(to: lone.appendingPathComponent("app_test.lua"), atomically: true, encoding: .utf8)
    let one = try Command.run(["run", "lone/", "--data", "data"], in: directory)
    #expect(one.errors.hasSuffix("(did you mean lone/app.lua?)\n"), "\(one.errors)")
    try "return {}".write(to: lone.appendingPathComponent("b.lua"), atomically: true, encoding: .utf8)
    let two = try Command.run(["run", "lone", "--data", "data"], in: directory)
    #expect(!two.errors.contains("did you mean"), "\(two.errors)")
  }

  /// An action line that reads `state`, piped to `run`: the REPL is where it works.
  @Test func aPipedLineReadingStateSaysTheREPLReadsIt() throws {
    let outcome = try Command.run(
      ["run", "examples/counter/counter.lua", "--wait", "0"],
      input: #"{ type = "increment", n = state.count }"# + "\n")
    #expect(outcome.status == 2)
    #expect(
      outcome.errors.contains(
        "attempt to index a nil value (global 'state')\n  (an action line reads `state` in the "
          + "REPL only: composable repl FEATURE)"), "\(outcome.errors)")
  }

  /// `later`: the save went beside the file during the run already, and the signal's save goes
  /// where it went (said "the state was saved": only the first save beside threw).
  @Test(arguments: [false, true])
  func aSignalsSaveBesideTheFileIsSaidSo(later: Bool) throws {
    let (directory, feature, saved) = try Self.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try RunningNotes(feature: feature, in: directory)
    #expect(run.add("bread"))
    let deadline = Date().addingTimeInterval(20)
    while (try? String(contentsOf: saved, encoding: .utf8))?.contains("bread") != true,
      Date() < deadline
    {
      usleep(10_000)
    }
    let theirs = #"return { notes = { "theirs" } }"#
    try theirs.write(to: saved, atomically: true, encoding: .utf8)
    #expect(run.add("jam"))  // its save waits a second: the signal's save writes it
    if later {
      usleep(2_500_000)  // past the debounce: that save goes beside, and says so
      #expect(run.add("more"))
    }
    kill(run.pid, SIGTERM)
    run.process.waitUntilExit()
    #expect(run.process.terminationStatus == 128 + SIGTERM)
    let errors = run.errors
    #expect(errors.contains("the state was saved beside its file in the data directory"))
    #expect(
      errors.split(separator: "\n").last
        == "error: stopped by SIGTERM, and the state was saved beside its file (exit status 143)",
      "\(errors)")
    #expect(try String(contentsOf: saved, encoding: .utf8) == theirs)
    let data = saved.deletingLastPathComponent()
    let beside = try FileManager.default.contentsOfDirectory(atPath: data.path)
      .filter { $0.hasPrefix("notes.saved.lua.conflict-") }
    #expect(beside.count == 1)
    let aside = try String(
      contentsOf: data.appendingPathComponent(beside.first ?? "none"), encoding: .utf8)
    #expect(
      aside.contains(later ? #"notes = { "bread", "jam", "more" }"# : #"notes = { "bread", "jam" }"#),
      "\(aside)")
  }

  /// Output read by a command that stopped reading (`composable run ... | head -1`): the next
  /// line written raises SIGPIPE, which ends the process as a kill does, once the save that
  /// waits is written. A SIGPIPE while the output is still read is no end.
  @Test func aSaveStillWaitingIsWrittenWhenTheOutputGoes() throws {
    let (directory, feature, saved) = try Self.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try RunningNotes(feature: feature, in: directory)
    _ = run.add("bread")
    // A SIGPIPE from elsewhere while the output is read: ignored.
    kill(run.pid, SIGPIPE)
    #expect(run.add("jam"), "the process ended on a SIGPIPE it should ignore")
    try run.stdout.fileHandleForReading.close()
    run.send("milk")
    run.process.waitUntilExit()
    #expect(run.process.terminationStatus == 128 + SIGPIPE)
    #expect(run.process.terminationReason == .exit)
    let text = try String(contentsOf: saved, encoding: .utf8)
    #expect(text.contains(#"notes = { "bread", "jam", "milk" }"#), "\(text)")
    #expect(
      run.lastError
        == "error: the output's reader went away (as after `| head -1`): the run stopped there; "
        + "the input not read yet was not run, and the state the actions so far left was saved "
        + "(exit status 141)")
  }

  /// The output's reader gone, and no SIGPIPE to say so (here it is blocked, as a parent may
  /// leave it; elsewhere the input may end first): the run reads on, and ends with the status
  /// and the state as if the signal had stopped it, never as a run that merely could not write.
  @Test func anOutputGoneWithNoSIGPIPEEndsAsIfOneCame() throws {
    let (directory, feature, saved) = try Self.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = Pipe(), output = Pipe(), errors = Pipe()
    try output.fileHandleForReading.close()  // gone before the run writes anything
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, input.fileHandleForReading.fileDescriptor, 0)
    posix_spawn_file_actions_adddup2(&actions, output.fileHandleForWriting.fileDescriptor, 1)
    posix_spawn_file_actions_adddup2(&actions, errors.fileHandleForWriting.fileDescriptor, 2)
    // Nothing else of this process (Foundation's pipes are open across exec): the input's write
    // end would keep the input open, and another test's pipe kept open here would keep its
    // reader there, hiding a reader gone.
    for descriptor in openDescriptors(keepingSockets: false) {
      posix_spawn_file_actions_addclose(&actions, descriptor)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var blocked = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGPIPE)
    posix_spawnattr_setsigmask(&attributes, &blocked)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let words = [
      try builtProduct("composable").path, "run", feature.path, "--wait", "0", "--data",
      directory.appendingPathComponent("data").path,
    ]
    let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    #expect(posix_spawn(&pid, words[0], &actions, &attributes, argv, environ) == 0)
    try output.fileHandleForWriting.close()
    try errors.fileHandleForWriting.close()
    let lines = ["bread", "jam", "milk"].map { #"{ type = "add", text = "\#($0)" }"# + "\n" }
    input.fileHandleForWriting.write(Data(lines.joined().utf8))
    try input.fileHandleForWriting.close()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    #expect(status & 0x7f == 0, "the run was killed by signal \(status & 0x7f)")
    #expect((status >> 8) & 0xff == 141, "\(text)")
    #expect(
      text.split(separator: "\n").last.map(String.init)
        == "error: the output's reader went away before the run ended: what it printed after "
        + "that was lost (exit status 141)")
    let kept = try String(contentsOf: saved, encoding: .utf8)
    #expect(kept.contains(#"notes = { "bread", "jam", "milk" }"#), "\(kept)")
  }

  /// A SIGPIPE another process sends (`kill -PIPE`) is no sign that the output went, even once
  /// it has gone: the run reads on, and ends at its own write that fails, with the action that
  /// write was for saved. (A handler that took the stray signal for lost output ended the run
  /// there, before the input still waiting was read: milk was lost.)
  @Test func aSIGPIPEFromAnotherProcessEndsNothing() throws {
    let (directory, feature, saved) = try Self.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try RunningNotes(feature: feature, in: directory)
    #expect(run.add("bread"))
    try run.stdout.fileHandleForReading.close()
    kill(run.pid, SIGPIPE)
    // Time for a handler that took it for lost output to end the run.
    usleep(300_000)
    #expect(run.process.isRunning, "the run ended on a SIGPIPE another process sent")
    guard run.process.isRunning else { return }
    run.send("milk")
    run.process.waitUntilExit()
    #expect(run.process.terminationStatus == 128 + SIGPIPE)
    let text = try String(contentsOf: saved, encoding: .utf8)
    #expect(text.contains(#"notes = { "bread", "milk" }"#), "\(text)")
  }

  /// A state that cannot be saved (known at start here), or output that could not be written,
  /// ends the run with status 1 and says which: a script checking the status must not take it
  /// for done.
  @Test func aFailedSaveOrLostOutputIsAFailingStatus() throws {
    let (directory, feature, _) = try Self.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("a-file")
    try "x".write(to: file, atomically: true, encoding: .utf8)
    let unsaved = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", file.appendingPathComponent("data").path],
      input: #"{ type = "add", text = "tea" }"# + "\n")
    #expect(unsaved.status == 1)
    #expect(unsaved.errors.contains("the state cannot be saved"), "\(unsaved.errors)")

    let process = Process()
    process.executableURL = try builtProduct("composable")
    process.arguments = [
      "run", feature.path, "--wait", "0", "--data", directory.appendingPathComponent("data").path,
    ]
    let stdin = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data((#"{ type = "add", text = "tea" }"# + "\n").utf8))
    try stdin.fileHandleForWriting.close()
    let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 1)
    #expect(
      errors.contains("what the run printed could not all be written to its output"), "\(errors)")

    // Standard error lost as well: the status still says so, and nothing traps.
    let both = Process()
    both.executableURL = try builtProduct("composable")
    both.arguments = process.arguments
    let input = Pipe()
    both.standardInput = input
    both.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
    both.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
    try both.run()
    input.fileHandleForWriting.write(Data((#"{ type = "add", text = "jam" }"# + "\n").utf8))
    try input.fileHandleForWriting.close()
    both.waitUntilExit()
    #expect(both.terminationReason == .exit)
    #expect(both.terminationStatus == 1)
  }

  /// A storm of signals that fills the handler's pipe (here SIGPIPEs, ignored while the output
  /// is read) neither blocks the process nor hides the SIGTERM after it: the save is written and
  /// the status is SIGTERM's.
  @Test func aSignalAfterAStormIsStillHeard() throws {
    let (directory, feature, saved) = try Self.notesFeature()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try RunningNotes(feature: feature, in: directory)
    _ = run.add("rye")
    for _ in 0..<200_000 { kill(run.pid, SIGPIPE) }
    kill(run.pid, SIGTERM)
    run.process.waitUntilExit()
    #expect(run.process.terminationReason == .exit)
    #expect(run.process.terminationStatus == 128 + SIGTERM)
    #expect(try String(contentsOf: saved, encoding: .utf8) == (try Self.savedNotes("rye")))
  }

  /// `composable run` on the notes feature with its data beside it, fed and read through pipes;
  /// whatever happens, the process is gone within half a minute (never a hung test).
  final class RunningNotes {
    let process = Process()
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    var pid: Int32 { process.processIdentifier }

    /// The last line the process wrote to standard error, once it ended.
    var lastError: String { errors.split(separator: "\n").last.map(String.init) ?? "" }

    /// What the process wrote to standard error, once it ended (read once).
    var errors: String {
      String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// With `underNohup`, started by `nohup`, which has it ignore SIGHUP.
    init(feature: URL, in directory: URL, underNohup: Bool = false) throws {
      let arguments = [
        "run", feature.path, "--data", directory.appendingPathComponent("data").path,
      ]
      if underNohup {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nohup")
        process.arguments = [try builtProduct("composable").path] + arguments
      } else {
        process.executableURL = try builtProduct("composable")
        process.arguments = arguments
      }
      process.standardInput = stdin
      process.standardOutput = stdout
      process.standardError = stderr
      try process.run()
      let pid = process.processIdentifier
      DispatchQueue.global().asyncAfter(deadline: .now() + 600) { kill(pid, SIGKILL) }
    }

    deinit { try? stdin.fileHandleForWriting.close() }

    /// Writes an action that adds `note`.
    func send(_ note: String) {
      stdin.fileHandleForWriting.write(Data((#"{ type = "add", text = "\#(note)" }"# + "\n").utf8))
    }

    /// `send`, then reads the output until the action is shown; whether it was.
    func add(_ note: String) -> Bool {
      send(note)
      return stdout.read(until: "received action").contains("received action")
    }
  }
}
