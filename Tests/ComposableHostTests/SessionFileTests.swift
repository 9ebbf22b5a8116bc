import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `:save FILE` and `composable replay FILE`: a session out to a file people can read, and in
/// again, headless; refused when the code no longer fits it.
@Suite struct SessionFileTests {
  typealias Harness = ReplSessionTests.Harness

  /// A todos session: two adds (ids from live UUIDs), a toggle of the second by its id, a roll.
  func recordTodos() async throws -> Harness {
    let repl = try Harness(source: TimeTravelTests.todos)
    await repl.type(#"{ type = "add", title = "milk\r\nand \"eggs\"" }"#)
    await repl.type(#"{ type = "add", title = "bread" }"#, "roll")
    let id = try repl.session.feature.evaluate("state.todos[2].id")[0]
    await repl.type("{ type = \"toggle\", id = \(id) }")
    return repl
  }

  /// Saved after a jump back, a session holds the actions up to where the REPL stands, and
  /// says so, with how many after it are left out.
  @Test func aSaveAfterAJumpBackSaysWhatItLeavesOut() async throws {
    let repl = try await recordTodos()
    let directory = repl.file.deletingLastPathComponent()
    await repl.type(":goto 1")
    let saved = await repl.type(":save \(directory.path)/early.lua").0
    #expect(
      saved == "  saved 1 action to \(directory.path)/early.lua; "
        + "composable replay \(directory.path)/early.lua runs them again\n"
        + "  (up to action 1: the 3 after it, undone or jumped back over, are not in it; :redo "
        + "or :goto 4 first to save them)")
    let read = try SessionRecording.read(from: directory.appendingPathComponent("early.lua"))
    #expect(read.actions.count == 1)
  }

  @Test func aSavedSessionReadsBackAndReplaysToTheSameState() async throws {
    let repl = try await recordTodos()
    let directory = repl.file.deletingLastPathComponent()
    let saved = await repl.type(":save \(directory.path)/session.lua").0
    #expect(
      saved == "  saved 4 actions to \(directory.path)/session.lua; "
        + "composable replay \(directory.path)/session.lua runs them again")
    let read = try SessionRecording.read(from: directory.appendingPathComponent("session.lua"))
    #expect(read == (await repl.session.recording(relativeTo: directory)))
    #expect(read.feature == "counter.lua")
    #expect(read.actions.map(\.draws.first?.name) == ["uuid", "uuid", "random", nil])
    let text = try String(
      contentsOf: directory.appendingPathComponent("session.lua"), encoding: .utf8)
    #expect(text.hasPrefix("-- A ComposableLua session (format composable-session, version 1).\n"))
    #expect(text.contains(#"action = { title = "milk\r\nand \"eggs\"", type = "add" },"#))

    let outcome = try Command.run(["replay", "session.lua"], in: directory)
    #expect(outcome.status == 0, "\(outcome.errors)")
    let live = try repl.session.feature.state()
    #expect(
      outcome.output == """
        replayed 4 actions of session.lua on counter.lua
        state \(live.pretty())

        """)
  }

  /// A session saved away from its feature names it with `..`, which a replay takes only from
  /// the command line (a session from someone else must not name any file): `:save` says how.
  @Test func aSessionSavedAwayFromItsFeatureSaysToNameIt() async throws {
    let repl = try await recordTodos()
    let elsewhere = try makeTemporaryDirectory("sessions-elsewhere")
    defer { try? FileManager.default.removeItem(at: elsewhere) }
    let session = elsewhere.appendingPathComponent("s.lua").path
    let saved = await repl.type(":save \(session)").0
    #expect(
      saved == "  saved 4 actions to \(session); composable replay --feature \(repl.file.path) "
        + "\(session) runs them again (its feature is not under the session file's folder, so a "
        + "replay takes it only when named)")
    let refused = try Command.run(["replay", session])
    #expect(refused.status == 1)
    #expect(refused.errors.contains("s.lua: feature: \"../"), "\(refused.errors)")
    let named = try Command.run(["replay", "--feature", repl.file.path, session])
    #expect(named.status == 0, "\(named.errors)")
  }

  /// Undone actions are not part of what is saved: the session as it stands.
  @Test func undoneActionsAreLeftOut() async throws {
    let repl = try await recordTodos()
    await repl.type(":goto 2")
    #expect(await repl.session.recording().actions.count == 2)
  }

  @Test func aSessionWhoseActionsNoLongerFitIsRefusedNamingTheFirst() async throws {
    let repl = try await recordTodos()
    let directory = repl.file.deletingLastPathComponent()
    await repl.type(":save \(directory.path)/session.lua")
    let source = try String(contentsOf: repl.file, encoding: .utf8)
    try source.replacingOccurrences(of: #"t == "roll""#, with: #"t == "dice""#)
      .write(to: repl.file, atomically: true, encoding: .utf8)
    let outcome = try Command.run(["replay", "session.lua"], in: directory)
    #expect(outcome.status == 1)
    #expect(outcome.output.isEmpty)
    #expect(
      outcome.errors == """
        error: session.lua does not fit: action 3 ({ type = "roll" }) does not fit counter.lua: \
        it handles no action of type roll. To fix, replay it on the code it was recorded with, \
        or, if the feature handles roll in a way its source does not show, list it in the \
        feature's `actions`.

        """)
  }

  /// A change that makes an action raise: the replay flags it by number and exits 1; a change
  /// of code is said.
  @Test func anActionThatNowRaisesExitsOne() async throws {
    let repl = try await recordTodos()
    let directory = repl.file.deletingLastPathComponent()
    await repl.type(":save \(directory.path)/session.lua")
    let source = try String(contentsOf: repl.file, encoding: .utf8)
    try source.replacingOccurrences(
      of: "todo.done = not todo.done", with: #"error("toggles are off")"#
    ).write(to: repl.file, atomically: true, encoding: .utf8)
    let outcome = try Command.run(["replay", "session.lua"], in: directory)
    #expect(outcome.status == 1)
    let lines = outcome.output.split(separator: "\n").map(String.init)
    #expect(lines.count > 3)
    #expect(lines[1] == "the code changed since the session was recorded")
    #expect(lines[2].hasPrefix("action 4 ({ id = \""))
    #expect(lines[2].hasSuffix(#"type = "toggle" }) now raises: counter.lua:10: toggles are off"#))
    #expect(
      outcome.errors
        == "error: the replay goes otherwise than the recording (above). To fix, change the code "
        + "back, or record the session again if the change is meant\n")
  }

  /// The exit status says whether the replay went as recorded: an action that raised when
  /// recorded and raises now is the session's (0, said), an effect that changed or an action
  /// that no longer raises is not (1) (a new user's finding: it was the other way round).
  @Test func theExitStatusSaysWhetherTheReplayWentAsRecorded() async throws {
    let repl = try ReplSessionTests.Harness(
      source: """
        local effect = require("composable.effect")
        return {
          initial_state = function() return { count = 0 } end,
          reduce = function(state, action)
            if action.type == "increment" then state.count = state.count + 1
            elseif action.type == "boom" then error("boom")
            elseif action.type == "ping" then return effect.send("pong")
            elseif action.type == "pong" then state.count = state.count + 10 end
          end,
        }
        """)
    let directory = repl.file.deletingLastPathComponent()
    await repl.type("increment", "boom", "ping")
    await repl.type(":save \(directory.path)/s.lua")
    let same = try Command.run(["replay", "s.lua"], in: directory)
    #expect(same.status == 0, "\(same.errors)")
    #expect(same.output.hasSuffix("(1 action raised, as when recorded)\n"), "\(same.output)")
    #expect(same.errors.isEmpty)
    let source = try String(contentsOf: repl.file, encoding: .utf8)
    for (from, to) in [
      ("return effect.send(\"pong\")", "state.count = state.count + 10"),  // another effect
      ("error(\"boom\")", "state.count = 0"),  // no longer raises
      ("error(\"boom\")", "error(\"bang\")"),  // raises another error
      ("reduce = function(state, action)", "\n\nreduce = function(state, action)"),  // moved
    ] {
      try source.replacingOccurrences(of: from, with: to)
        .write(to: repl.file, atomically: true, encoding: .utf8)
      let changed = try Command.run(["replay", "s.lua"], in: directory)
      if to.hasPrefix("\n") {  // lines moved: the error's `file.lua:N:` aside, the same error
        #expect(changed.status == 0, "\(changed.output)\(changed.errors)")
        continue
      }
      #expect(changed.status == 1, "\(to): \(changed.output)")
      #expect(changed.errors.hasPrefix("error: the replay goes otherwise than the recording"))
      if to.contains("bang") {
        #expect(changed.output.contains("now raises another error: "), "\(changed.output)")
      }
    }
  }

  /// A report that could not be written (a full disk) is said, and 1 (it exited 0).
  @Test func aReportThatCouldNotBeWrittenIsStatusOne() async throws {
    let repl = try await recordTodos()
    let directory = repl.file.deletingLastPathComponent()
    await repl.type(":save \(directory.path)/session.lua")
    let process = Process()
    process.executableURL = try builtProduct("composable")
    process.arguments = ["replay", directory.appendingPathComponent("session.lua").path]
    let stderr = Pipe()
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
    process.standardError = stderr
    try process.run()
    let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 1)
    #expect(errors.hasPrefix("error: the replay's report could not all be written"), "\(errors)")
  }

  /// `--feature` replays on another file: the same session on a copy.
  @Test func featureNamesAnotherFile() async throws {
    let repl = try await recordTodos()
    let directory = repl.file.deletingLastPathComponent()
    await repl.type(":save \(directory.path)/session.lua")
    try FileManager.default.copyItem(
      at: repl.file, to: directory.appendingPathComponent("copy.lua"))
    try "return {".write(to: repl.file, atomically: true, encoding: .utf8)
    let broken = try Command.run(["replay", "session.lua"], in: directory)
    #expect(broken.status == 1)
    #expect(broken.errors.hasPrefix("error: counter.lua"))
    let outcome = try Command.run(
      ["replay", "session.lua", "--feature", "copy.lua"], in: directory)
    #expect(outcome.status == 0, "\(outcome.errors)")
    #expect(outcome.output.hasPrefix("replayed 4 actions of session.lua on copy.lua\n"))
  }

  /// A session file of version 1 whose `actions` field is `actions`.
  static func session(actions: String) -> String {
    #"return { format = "composable-session", version = 1, feature = "f.lua", code = "", "#
      + "initial_state = {}, actions = \(actions) }"
  }

  static let malformed: [(String, String)] = [
    ("return 42", "s.lua: session: expected a table, got integer"),
    ("return {}", #"s.lua: format: expected "composable-session", got nil: not a session file"#),
    (
      #"return { format = "composable-session", version = 2 }"#,
      "s.lua: version: this composable reads versions 1 to 1, the file is 2"
    ),
    (
      session(actions: #"{ { action = { type = "a" }, at = "soon" } }"#),
      "s.lua: actions[1].at: expected seconds (a number, 0 or more)"
    ),
    (
      session(actions: #"{ { action = { type = "a" }, at = 0/0 } }"#),
      "s.lua: actions[1].at: expected seconds (a number, 0 or more)"
    ),
    (
      session(actions: #"{ { action = { type = "a" }, at = 1e309 } }"#),
      "s.lua: actions[1].at: expected seconds (a number, 0 or more)"
    ),
    (
      session(actions: #"{ { action = { type = "a" }, at = -1 } }"#),
      "s.lua: actions[1].at: expected seconds (a number, 0 or more)"
    ),
    (
      session(actions: #"{ { action = "increment", at = 0 } }"#),
      "s.lua: actions[1].action: expected an action table, got string"
    ),
    (
      session(actions: #"{ { action = { type = "a" }, at = 0, draws = { { "uuid", 1 } } } }"#),
      "s.lua: actions[1].draws[1]: env.uuid() answers a string, got 1"
    ),
    (
      session(actions: #"{ { action = { type = "a" }, at = 0, draws = { { "now", {} } } } }"#),
      "s.lua: actions[1].draws[1]: env.now() answers a finite number, got table"
    ),
    (
      session(actions: #"{ { action = { type = "a" }, at = 0, draws = { { "now", 1/0 } } } }"#),
      "s.lua: actions[1].draws[1]: env.now() answers a finite number, got math.huge"
    ),
    (
      session(
        actions: #"{ { action = { type = "a" }, at = 0, draws = { { "random", "s" } } } }"#),
      "s.lua: actions[1].draws[1]: env.random() answers a number, got string"
    ),
    (
      session(actions: #"{ { action = { type = "a" }, at = 0, draws = { { "rand", 1 } } } }"#),
      #"s.lua: actions[1].draws[1]: expected the name of uuid, now or random, got "rand""#
    ),
    (
      session(actions: #"{ { action = { type = "a" }, at = 0, draws = { { 1 } } } }"#),
      #"s.lua: actions[1].draws[1]: expected { "name", value }"#
    ),
    (
      "return " + String(repeating: "{ ", count: 300) + String(repeating: "} ", count: 300),
      "s.lua: not a session file: "
    ),
    (
      session(actions: "{ a = 1 }"),
      #"s.lua: actions: expected a list of actions, got a table with the key "a""#
    ),
    (
      #"return { format = "composable-session", version = 1, feature = "f.lua", code = "", "#
        + #"actions = {}, initial_state = "hello" }"#,
      "s.lua: initial_state: expected the state (a table), got string"
    ),
    (
      #"return { format = "composable-session", version = 1, feature = "f.lua", code = "", "#
        + "actions = {}, initial_state = " + String(repeating: "{ a = ", count: 201) + "1"
        + String(repeating: " }", count: 201) + " }",
      "s.lua: initial_state: nested more than 200 levels deep, as no state may be"
    ),
    (
      #"return { format = "composable-session", version = 1, feature = "f.lua", code = "", "#
        + "actions = {} }",
      "s.lua: initial_state: missing: a session holds the state it began from (a table), which "
        + "its actions are replayed on"
    ),
    // A field the format does not have, at the top or in an action: misspelt, it was passed
    // over (the replay ran without the initial state it meant to give).
    (
      #"return { format = "composable-session", version = 1, feature = "f.lua", code = "", "#
        + "actions = {}, initial_state = {}, intial_state = { n = 1 } }",
      "s.lua: intial_state: the format has no such field; a session has format, version, "
        + "feature, code, env, initial_state, actions"
    ),
    (
      session(actions: #"{ { action = { type = "a" }, at = 0, from_efect = true } }"#),
      "s.lua: actions[1].from_efect: the format has no such field; an action has action, at, "
        + "from_effect, draws, effect, error, did_nothing, after_jump"
    ),
    (
      session(actions: #"{ { action = { type = "a" }, at = 0, [1] = true } }"#),
      "s.lua: actions[1][1]: the format has no such field; an action has"
    ),
    // Cut short at its start: an action an effect sent, with no effect started before it.
    (
      session(actions: #"{ { action = { type = "done" }, at = 0, from_effect = true } }"#),
      "s.lua: actions[1].from_effect: sent by an effect, but no action before it returned one "
        + "(the session lost the action that started it). To fix, keep the actions before it, "
        + "or remove it"
    ),
    (
      session(
        actions: #"{ { action = { type = "a" }, at = 0 }, "#
          + #"{ action = { type = "done" }, at = 0, from_effect = true, sent_at_once = true } }"#),
      "s.lua: actions[2].from_effect: sent by an effect, but no action before it returned one"
    ),
    ("return os.exit(3)", "s.lua: not a session file: "),
    ("return {", "s.lua: not a session file: "),
  ]

  /// An empty list of actions reads back whether written `{}` or as `:save` writes it.
  @Test(arguments: ["{}", "{ nil }"])
  func noActionsIsAnEmptyList(actions: String) throws {
    let directory = try makeTemporaryDirectory("session")
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("s.lua")
    try Self.session(actions: actions).write(to: url, atomically: true, encoding: .utf8)
    #expect(try SessionRecording.read(from: url).actions.isEmpty)
  }

  /// A session saved before any action writes its actions as `{}`: `{ nil }` (an empty list's
  /// mark elsewhere) read as an action that was lost.
  @Test func aSessionWithNoActionsIsSavedAsAnEmptyTable() async throws {
    let repl = try ReplSessionTests.Harness()
    let directory = repl.file.deletingLastPathComponent()
    await repl.type(":save \(directory.path)/none.lua")
    let url = directory.appendingPathComponent("none.lua")
    let text = try String(contentsOf: url, encoding: .utf8)
    #expect(text.contains("  actions = {},\n"), "\(text)")
    #expect(!text.contains("nil"))
    #expect(try SessionRecording.read(from: url).actions.isEmpty)
  }

  /// A session moved away from its feature says how to replay it all the same.
  @Test func aFeatureNotBesideTheSessionSaysToNameIt() throws {
    let directory = try makeTemporaryDirectory("session")
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("s.lua")
    try Self.session(actions: "{}").write(to: url, atomically: true, encoding: .utf8)
    let error = #expect(throws: SessionFileError.self) {
      try SessionRecording.read(from: url).featureFile(besideSession: url)
    }
    let missing = directory.standardizedFileURL.appendingPathComponent("f.lua").path
    #expect(
      error?.description
        == "s.lua: feature: f.lua is not beside the session file (\(missing) does not exist). "
        + "To fix, replay it on a feature you name: composable replay --feature FILE s.lua")
  }

  /// A session's feature that names a folder (`.`) says so.
  @Test func aFeatureThatIsAFolderIsSaidToBeOne() throws {
    let directory = try makeTemporaryDirectory("session")
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("s.lua")
    try Self.session(actions: "{}").replacingOccurrences(of: "f.lua", with: ".")
      .write(to: url, atomically: true, encoding: .utf8)
    let error = #expect(throws: SessionFileError.self) {
      try SessionRecording.read(from: url).featureFile(besideSession: url)
    }
    #expect(
      error?.description
        == "s.lua: feature: . is a folder, not a feature's file. To fix, replay it on a feature "
        + "you name: composable replay --feature FILE s.lua")
  }

  @Test(arguments: malformed)
  func aFileThatIsNoSessionIsNamedWithItsField(text: String, message: String) throws {
    let directory = try makeTemporaryDirectory("session")
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("s.lua")
    try text.write(to: url, atomically: true, encoding: .utf8)
    let error = #expect(throws: SessionFileError.self) { try SessionRecording.read(from: url) }
    #expect(error?.description.hasPrefix(message) == true, "\(String(describing: error))")
  }

  /// A save that cannot be written says why, and the session goes on; a value that is not
  /// data (json.null, a userdata) is named by its field.
  @Test func aSaveThatFailsSaysWhyAndLosesNothing() async throws {
    let repl = try Harness()
    await repl.type("increment")
    #expect(await repl.type(":save").0 == "  error: :save takes a file name (:save session.lua)")
    let missing = await repl.type(":save /nonexistent/dir/s.lua").0
    #expect(
      missing
        == "  error: the session was not saved: /nonexistent/dir/s.lua: its folder "
        + "/nonexistent/dir does not exist. To fix, make the folder first, or save where one is")
    #expect(
      await repl.type(":save /proc/s.lua").0
        == "  error: the session was not saved: /proc/s.lua: a file cannot be made there")
    let source = ReplSessionTests.source.replacingOccurrences(
      of: "elseif action.type == \"ping\" then",
      with: "elseif action.type == \"null\" then\n state.n = require(\"composable.json\").null\n"
        + "elseif action.type == \"ping\" then")
    let nulls = try Harness(source: source)
    await nulls.type(#"{ type = "add", item = "x" }"#)
    let directory = nulls.file.deletingLastPathComponent()
    await nulls.type("null")
    // The null is in the state, not in the recording: the recording saves.
    #expect(await nulls.type(":save \(directory.path)/s.lua").0.hasPrefix("  saved 2 actions"))
    await repl.type("increment")
    #expect(await repl.type(":state count").0 == "  2")
  }

  @Test func aMissingSessionFileIsAClearError() throws {
    let outcome = try Command.run(["replay", "/nonexistent/s.lua"])
    #expect(outcome.status == 1)
    #expect(outcome.errors.hasPrefix("error: s.lua: "))
  }

  /// Values a session must keep exactly: floats apart from integers, -0.0, NaN, CR/LF,
  /// bytes that are not UTF-8.
  @Test func awkwardValuesRoundTrip() throws {
    let directory = try makeTemporaryDirectory("session")
    defer { try? FileManager.default.removeItem(at: directory) }
    let action: LuaValue = [
      "type": "set", "one": 1, "float": 1.0, "zero": .number(-0.0), "nan": .number(.nan),
      "big": .integer(.min), "text": "a\r\nb\0c",
      "bytes": .string(LuaString(bytes: [0xFF, 0xFE])),
    ]
    let recording = SessionRecording(
      feature: "f.lua", code: "x", env: ["debug": true], initialState: ["n": 0],
      actions: [
        RecordedAction(
          action: ["type": "go"], fromEffect: false, time: 1, effect: ["kind": "send"]),
        RecordedAction(
          action: action, fromEffect: true, time: 2.5,
          draws: [.init(name: "now", value: 1.5)], effect: ["kind": "send"], error: "f.lua:1: x"),
      ])
    let url = directory.appendingPathComponent("s.lua")
    try recording.write(to: url)
    let read = try SessionRecording.read(from: url)
    // NaN is not equal to itself: compare it apart.
    #expect(read.actions[1].action.tableValue?["nan"].doubleValue?.isNaN == true)
    var expected = recording, actual = read
    expected.actions[1].action = .nil
    actual.actions[1].action = .nil
    #expect(actual == expected)
    var withoutNaN = action.tableValue!
    withoutNaN["nan"] = .nil
    var readWithoutNaN = read.actions[1].action.tableValue!
    readWithoutNaN["nan"] = .nil
    #expect(readWithoutNaN == withoutNaN)
    #expect(readWithoutNaN["zero"].doubleValue?.sign == .minus)
    #expect(readWithoutNaN["float"] == .number(1.0))
  }
}
