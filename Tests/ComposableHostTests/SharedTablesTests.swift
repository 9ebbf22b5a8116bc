import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `local t = {"leaf"} for i = 1, 40 do t = {t, t} end`: 41 tables, 2^40 paths, through every
/// path a value takes in the host (the change printer, `effect.send`, an input line, a saved
/// file, a session, a failed action's message, TestStore failures, the REPL, Lua tests). Each
/// finishes in the value's distinct tables, and every printed value is capped. (No timing:
/// a walk of 2^40 paths would not end, and the suite's own limit catches that.)
@Suite struct SharedTablesTests {
  static let dag = "(function() local t = { 'leaf' } for i = 1, 40 do t = { t, t } end return t end)()"

  static let feature = """
    local composable = require("composable")
    local effect = require("composable.effect")
    local function dag() return \(dag) end
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action)
        if action.type == "make" then
          state.dag = dag()
        elseif action.type == "touch" then
          local t = state.dag
          while type(t[1]) == "table" do t = t[1] end
          t[1] = "touched"
        elseif action.type == "send" then
          return effect.send({ type = "got", t = dag() })
        elseif action.type == "got" then
          state.got = action.t
        elseif action.type == "fail" then
          error("refused on purpose")
        end
      end,
    }
    """

  /// The same, built in Swift: each level one table held twice.
  static func dagValue(levels: Int = 40) -> LuaValue {
    var table: LuaValue = ["leaf"]
    for _ in 0..<levels { table = [table, table] }
    return table
  }

  /// The printed form of the 40-level DAG's start, as every printer labels it.
  static let labelled = "{ <1>{ <2>{ <3>{ <4>{"

  func directory(with feature: String = feature, file: String = "dag.lua") throws -> URL {
    let directory = try makeTemporaryDirectory("shared")
    try feature.write(to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
    return directory
  }

  /// Every line a host printed is capped (a description, plus the indent and the path).
  func expectLinesCapped(_ output: String, sourceLocation: SourceLocation = #_sourceLocation) {
    for line in output.split(separator: "\n") {
      #expect(line.utf8.count < LuaValue.descriptionLimit + 200, sourceLocation: sourceLocation)
    }
  }

  @Test func theChangePrinterShowsADagInItsTables() throws {
    let directory = try directory()
    let outcome = try Command.run(
      ["run", "dag.lua", "--wait", "0"], input: "make\ntouch\nsend\n", in: directory)
    #expect(outcome.status == 0, "\(outcome.errors)")
    #expect(outcome.output.contains("+ dag = " + Self.labelled))
    #expect(outcome.output.contains(#"+ dag[1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1] = "touched""#))
    #expect(outcome.output.contains("= dag[2]: the same table as dag[1]"))
    // effect.send carries the DAG back as an action, printed and stored.
    #expect(outcome.output.contains("received action:\n  { t = " + Self.labelled))
    #expect(outcome.output.contains("+ got = " + Self.labelled))
    expectLinesCapped(outcome.output)
  }

  @Test func anInputLineThatBuildsADagIsAnAction() throws {
    let directory = try directory()
    let line = "{ type = \"got\", t = \(Self.dag) }"
    let outcome = try Command.run(
      ["run", "dag.lua", "--wait", "0"], input: line + "\n", in: directory)
    #expect(outcome.status == 0, "\(outcome.errors)")
    #expect(outcome.output.contains("+ got = " + Self.labelled))
    expectLinesCapped(outcome.output)
  }

  /// A failed action's message names the action by its capped description: a DAG in 41
  /// tables, 20 MB in 2 KB.
  @Test func aFailedActionsMessageIsCapped() throws {
    let feature = try LuaFeature(source: Self.feature, file: "dag.lua")
    let huge = String(repeating: "x", count: 20_000_000)
    for action: LuaValue in [
      ["type": "fail", "data": .string(LuaString(huge))],
      ["type": "fail", "t": Self.dagValue()],
    ] {
      let error = featureError {
        try feature.step(action)
      }
      let message = error?.description ?? ""
      #expect(message.hasPrefix("the reducer failed on {"), "\(message.prefix(200))")
      #expect(message.contains("refused on purpose"))
      #expect(message.utf8.count < LuaValue.descriptionLimit + 500)
    }
    let error = featureError {
      try feature.step(["type": "fail", "data": .string(LuaString(huge))])
    }
    #expect(error?.description.contains("… 19997") == true)
    #expect(error?.description.contains(" more bytes, and the state was rolled back") == true)
  }

  /// A saved file that shares a table is read as one table; the state is saved as it is.
  @Test func aSavedFileWithADagIsRestoredSharedAndSavedAgain() throws {
    let persisting = Self.feature.replacingOccurrences(
      of: "  initial_state = ",
      with: "  persist = composable.persist{ path = \"dag.saved.lua\", debounce = 0 },\n"
        + "  initial_state = ")
    #expect(persisting.contains("persist = composable.persist"))
    let directory = try directory(with: persisting)
    let saved = try LuaDataFile.text(of: ["n": 1, "dag": Self.dagValue()])
    try saved.write(
      to: directory.appendingPathComponent("dag.saved.lua"), atomically: true, encoding: .utf8)
    let outcome = try Command.run(
      ["run", "dag.lua", "--wait", "0", "--data", "."], input: "touch\n", in: directory)
    #expect(outcome.status == 0, "\(outcome.errors)")
    #expect(outcome.output.contains("dag.lua loaded. State: { dag = " + Self.labelled))
    #expect(outcome.output.contains("= dag[2]: the same table as dag[1]"))
    let again = try LuaDataFile.read(
      LuaSourceFile.bytes(of: directory.appendingPathComponent("dag.saved.lua"), limit: 1 << 20),
      chunkName: "saved")
    #expect(again.dag.sharedTables.count == 40)
    var leaf = again.dag
    while case .table = leaf[1] { leaf = leaf[1] }
    #expect(leaf[1] == "touched")
  }

  /// A session whose initial state and actions hold a DAG replays; one that computes is refused
  /// with its line and column, and nothing of it runs.
  @Test func aSessionWithADagReplaysAndOneThatComputesIsRefused() throws {
    let directory = try directory()
    let recording = SessionRecording(
      feature: "dag.lua", code: "fnv1a64:0", env: [:],
      initialState: ["n": 0, "dag": Self.dagValue()],
      actions: [
        RecordedAction(action: ["type": "touch"], fromEffect: false, time: 0),
        RecordedAction(
          action: ["type": "got", "t": Self.dagValue()], fromEffect: false,
          time: 1),
      ])
    try recording.write(to: directory.appendingPathComponent("session.lua"))
    let outcome = try Command.run(["replay", "session.lua"], in: directory)
    #expect(outcome.status == 0, "\(outcome.errors)")
    #expect(outcome.output.contains("<40>"))
    expectLinesCapped(outcome.output)

    var text = try String(
      contentsOf: directory.appendingPathComponent("session.lua"), encoding: .utf8)
    text = text.replacingOccurrences(of: "n = 0,", with: "n = 6 * 7,")
    try text.write(
      to: directory.appendingPathComponent("computes.lua"), atomically: true, encoding: .utf8)
    let refused = try Command.run(["replay", "computes.lua"], in: directory)
    #expect(refused.status != 0)
    #expect(refused.errors.contains("computes.lua:"), "\(refused.errors)")
    #expect(refused.errors.contains("found '*'"), "\(refused.errors)")
  }

  /// A session file larger than a data file may be is refused having read no more than that.
  @Test func aSessionFileTooLargeIsRefused() throws {
    let directory = try directory()
    let url = directory.appendingPathComponent("huge.lua")
    FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    try handle.truncate(atOffset: UInt64(LuaDataFile.maximumSize) * 4)  // sparse: no disk
    try handle.close()
    do {
      _ = try SessionRecording.read(from: url)
      Issue.record("a file of 128 MiB was read")
    } catch {
      #expect(
        "\(error)"
          == "huge.lua: it is 134217728 bytes, more than the 33554432 a file read here may have")
    }
  }

  /// A TestStore's failure over a state that holds a DAG: the diff is listed in its tables.
  @Test func aTestStoreFailureOverADagIsBounded() async throws {
    let store = try TestStore(
      feature: try directory().appendingPathComponent("dag.lua").path)
    let messages = Locked<[String]>([])
    await withKnownIssue {
      await store.send("make") { $0.dag = "not this" }
    } matching: { issue in
      messages.withLock { $0.append(message(of: issue)) }
      return true
    }
    let made = messages.withLock { $0.joined() }
    #expect(made.contains("+ dag = " + Self.labelled), "\(made.prefix(300))")
    #expect(made.utf8.count < 3 * LuaValue.descriptionLimit)
    await withKnownIssue {
      await store.send("touch")
    } matching: { issue in
      messages.withLock { $0 = [message(of: issue)] }
      return true
    }
    #expect(messages.withLock { $0.joined() }.contains("= dag[2]: the same table as dag[1]"))
  }

  /// The REPL prints a DAG state, and the actions that make and change it, in its tables.
  @Test func theReplPrintsADagInItsTables() async throws {
    let file = try directory().appendingPathComponent("dag.lua")
    let repl = try ReplSessionTests.Harness(file: file)
    let made = await repl.type("make").0
    #expect(made.contains("+ dag = " + Self.labelled))
    let state = await repl.type(":state").0
    #expect(state.contains("<40>"))
    #expect(state.utf8.count < LuaValue.prettyLimit + 100)
    let sent = await repl.type("send").0
    #expect(sent.contains("← { t = " + Self.labelled))
  }

  /// A Lua test's `assert.same` over DAGs: compared in their tables, described with labels.
  @Test func aLuaTestComparesAndDescribesADagInItsTables() async throws {
    let directory = try directory()
    let test = """
      local function dag(leaf)
        local t = { leaf } for i = 1, 40 do t = { t, t } end return t
      end
      describe("dags", function()
        it("are the same", function() assert.same(dag("leaf"), dag("leaf")) end)
        it("differ", function() assert.same(dag("leaf"), dag("other")) end)
      end)
      """
    let file = directory.appendingPathComponent("dag_test.lua")
    try test.write(to: file, atomically: true, encoding: .utf8)
    let results = await LuaTestRunner().run(file: file)
    #expect(results.count == 2)
    #expect(results.first?.outcome == .passed)
    guard case let .failed(messages) = results.last?.outcome else {
      Issue.record("expected the second to fail, got \(String(describing: results.last))")
      return
    }
    let message = messages.joined()
    #expect(message.contains("Expected objects to be the same."))
    #expect(message.contains("<40>{\n"))
    #expect(message.utf8.count < 20_000)  // two DAGs, a line a table, indented
  }

  /// Time travel puts back a state that shares as it shared: after `:goto`, writing through one
  /// place still shows at the other.
  @Test func timeTravelKeepsTablesShared() async throws {
    let file = try directory().appendingPathComponent("dag.lua")
    let repl = try ReplSessionTests.Harness(file: file)
    await repl.type("make", "touch", "send")
    await repl.type(":goto 1")
    let touched = await repl.type("touch").0
    #expect(touched.contains("= dag[2]: the same table as dag[1]"), "\(touched.prefix(500))")
    let state = try repl.session.feature.state()
    #expect(state.dag.sharedTables.count == 40)
  }

  /// A session over DAGs written as a Lua test (`:test`) passes, its expected states written in
  /// their tables; as a Swift test, its literals name the shared tables.
  @Test func aSessionOverADagBecomesATestThatPasses() async throws {
    let file = try directory().appendingPathComponent("dag.lua")
    let repl = try ReplSessionTests.Harness(file: file)
    await repl.type("make", "touch", "send")
    let test = file.deletingLastPathComponent().appendingPathComponent("dag_test.lua")
    let written = await repl.type(":test \(test.path)").0
    #expect(written.hasSuffix("it passes (composable test \(test.path))"), "\(written)")
    let text = try String(contentsOf: test, encoding: .utf8)
    #expect(text.contains("local shared = {}"))
    #expect(text.utf8.count < 20_000)
    let swift = file.deletingLastPathComponent().appendingPathComponent("DagSessionTests.swift")
    _ = await repl.type(":test \(swift.path)")
    let swiftText = try String(contentsOf: swift, encoding: .utf8)
    #expect(swiftText.contains("let shared1: LuaValue = [\"leaf\"]"))
    #expect(swiftText.utf8.count < 20_000)
  }

  /// One reducer's result holds at most 10,000 effects: `e = effect.merge(e, e)` forty times
  /// over is refused, the action rolled back, not run 2^40 times.
  @Test func anEffectMergedWithItselfFortyTimesIsRefused() throws {
    let feature = try LuaFeature(
      source: """
        local effect = require("composable.effect")
        return {
          initial_state = function() return { n = 0 } end,
          reduce = function(state, action)
            state.n = state.n + 1
            local e = effect.send("tick")
            for _ = 1, 40 do e = effect.merge(e, e) end
            return e
          end,
        }
        """, file: "merge.lua")
    let errors = Locked<[String]>([])
    let reducer = LuaFeatureReducer<LuaFeatureHandle>(
      feature: feature, dependencies: .test, onError: { error in
        errors.withLock { $0.append("\(error)") }
      })
    var handle = LuaFeatureHandle(feature: feature)
    _ = reducer.reduce(into: &handle, action: "go")
    let error = errors.withLock { $0.joined() }
    #expect(error.contains("effect: more than 10000 effects in one result"), "\(error)")
    #expect(try feature.state().n == 0)
  }
}
