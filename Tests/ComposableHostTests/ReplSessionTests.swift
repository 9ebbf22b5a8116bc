import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// The REPL without a terminal: lines in, text out, pinned.
@Suite struct ReplSessionTests {
  static let source = """
    local effect = require("composable.effect")
    local Counter = {}
    Counter.actions = { "increment", "decrement", "later", "boom", "add" }
    -- A type handled through a table: no comparison in the source names it.
    local handlers = { pong = function(state) state.count = state.count + 100 end }
    function Counter.initial_state() return { count = 0, items = {} } end
    function Counter.reduce(state, action, env)
      if action.type == "increment" then
        state.count = state.count + 1
      elseif action.type == "decrement" then
        state.count = state.count - 1
      elseif action.type == "later" then
        return effect.after(1, "increment")
      elseif action.type == "soon" then
        return effect.after(0.2, "increment")
      elseif action.type == "boom" then
        state.count = 99
        error("boom")
      elseif action.type == "add" then
        table.insert(state.items, action.item)
      elseif action.type == "ping" then
        return effect.send("pong")
      elseif handlers[action.type] then
        handlers[action.type](state)
      elseif action.type == "in_a_minute" then
        return effect.after(60, "increment")
      end
    end
    return Counter
    """

  /// A session on `source` in a folder of its own, with what it printed.
  struct Harness {
    let session: ReplSession
    let printed: Locked<[String]>
    let file: URL
    let clock: ReplClock

    init(
      source: String = ReplSessionTests.source, env: LuaValue = [:],
      clock: ReplClock = ReplClock(paused: true), replaysOnReload: Bool = false,
      dependencies: DependencyValues = .live, file existing: URL? = nil,
      advanceTimeLimit: Duration = .seconds(10)
    ) throws {
      if let existing {
        file = existing
      } else {
        file = try makeTemporaryDirectory("repl").appendingPathComponent("counter.lua")
        try source.write(to: file, atomically: true, encoding: .utf8)
      }
      let printed = Locked<[String]>([])
      self.printed = printed
      self.clock = clock
      session = try ReplSession(
        feature: LuaFeature(contentsOf: file, env: env), file: file, env: env,
        dependencies: dependencies, clock: clock, replaysOnReload: replaysOnReload,
        advanceTimeLimit: advanceTimeLimit
      ) { text in printed.withLock { $0.append(text) } }
    }

    /// Sends `lines` and returns what they printed, and the last reply.
    @discardableResult
    func type(_ lines: String...) async -> (String, ReplSession.Reply) {
      printed.withLock { $0 = [] }
      var reply = ReplSession.Reply.ready
      for line in lines { reply = await session.handle(line) }
      await session.settle()
      return (printed.withLock { $0.joined(separator: "\n") }, reply)
    }
  }

  @Test func anActionPrintsWhatItChangedInLua() async throws {
    let repl = try Harness()
    #expect(await repl.type("increment").0 == "  − count = 0\n  + count = 1")
    #expect(await repl.type(#"{ type = "add", item = "milk" }"#).0 == #"  + items[1] = "milk""#)
  }

  @Test func anUnknownTypeChangesNothingAndTheNearestIsSuggested() async throws {
    let repl = try Harness()
    let typo = await repl.type("incremnt").0
    #expect(typo == #"  no state change: the feature names no action type "incremnt" (did you mean increment?)"#)
    // Near no name, of a feature that looks handlers up by type (`handlers[action.type]`): it
    // may be one it handles (`pong` is), so nothing is said.
    #expect(await repl.type("zzz").0 == "  no state change")
    // A type it names that changed nothing this time: nothing more to say.
    #expect(await repl.type("later").0 == "  no state change")
    // One handled through a table, which no comparison names: said once, learnt once it works.
    #expect(await repl.type("pong").0 == "  − count = 0\n  + count = 100")
    let number = await repl.type("42").0
    #expect(number == "  error: expected an action (a table with a string type, or a string), got number")
    let broken = await repl.type("{ type = }").0
    #expect(broken.hasPrefix("  error: the line is not an action (a word, or a Lua table): "))
  }

  /// An expression's error names the input as typed, not a chunk of the REPL's own.
  @Test func anExpressionsErrorNamesTheInput() async throws {
    let repl = try Harness()
    #expect(await repl.type("= nosuch.field").0
      == "  error: = nosuch.field: attempt to index a nil value (global 'nosuch')")
    #expect(await repl.type(":state no.such.path").0
      == "  error: :state no.such.path: attempt to index a nil value (field 'no')")
    #expect(await repl.type("= {", "  nil + 1 }").0
      == "  error: = {…:2: attempt to perform arithmetic on a nil value")
    #expect(await repl.type("= state.count + 1, state.items").0 == "1\n{}")
    #expect(await repl.type("= state.count = 5").0
      == "  error: syntax error: = state.count = 5: <eof> expected near '=' (= shows a value; "
      + "the state changes only through an action)")
    // A path `:state` cannot read says how one is written.
    #expect(await repl.type(":state items.1").0
      == "  error: syntax error: :state items.1: <eof> expected near '.1' (a path is written as "
      + "in Lua: todos[1].title, or [\"a key\"] for a key that is not a word)")
  }

  /// The input ending with an action still open: said (it was dropped without a word), counted
  /// as a line that was not an action, and the next session's prompt is fresh.
  @Test func anActionStillOpenWhenTheInputEndsIsSaid() async throws {
    let repl = try Harness()
    #expect(await repl.session.endOfInput() == false)
    await repl.type("{ type = \"add\",", "  item = [[eggs")
    #expect(await repl.session.endOfInput())
    let said = repl.printed.withLock { $0.last } ?? ""
    #expect(
      said
        == "  error: the input ended with an action still open (a bracket, a string or a comment "
        + "not closed), so it was not run: { type = \"add\", (and 1 more lines). To fix, close "
        + "what is open")
    #expect(repl.session.failures.counts.lines == 1 && !repl.session.failures.any)
    #expect(await repl.session.prompt == "> ")
    #expect(await repl.type(":state items").0 == "  {}")
  }

  /// An action typed may read the state and env, as an `=` expression does; it cannot write.
  @Test func anInputLineReadsTheStateReadOnly() async throws {
    let repl = try Harness(env: ["item": "env's"])
    await repl.type(#"{ type = "add", item = "milk" }"#)
    #expect(await repl.type(#"{ type = "add", item = state.items[1] .. " again" }"#).0
      == #"  + items[2] = "milk again""#)
    #expect(await repl.type(#"{ type = "add", item = env.item }"#).0 == #"  + items[3] = "env's""#)
    let write = await repl.type(#"{ type = "add", item = (function() state.count = 9 end)() }"#).0
    #expect(write.hasPrefix("  error: the line is not an action (a word, or a Lua table): "))
    #expect(write.contains("state changes only in reduce"))
    #expect(await repl.type(":state count").0 == "  0")
  }

  @Test func aTableOverTwoLinesContinues() async throws {
    let repl = try Harness()
    let (first, reply) = await repl.type("{ type = \"add\",")
    #expect(first.isEmpty && reply == .needsMore)
    #expect(await repl.session.prompt == ".. ")
    let (second, done) = await repl.type("  item = \"eggs\" }")
    #expect(second == #"  + items[1] = "eggs""# && done == .ready)
    #expect(await repl.session.prompt == "> ")
  }

  @Test func aReducerErrorIsShownRolledBackAndTheSessionGoesOn() async throws {
    let repl = try Harness()
    let (text, reply) = await repl.type("boom")
    #expect(reply == .ready)
    #expect(text.hasPrefix(#"  error: the reducer failed on { type = "boom" }, and the state was rolled back: counter.lua:18: boom"#))
    #expect(text.contains("stack traceback:"))
    // The error alone, as `composable run` prints it: it says the state was rolled back, and
    // nothing after it says again that nothing changed.
    #expect(!text.contains("no state change"), "\(text)")
    #expect(text.components(separatedBy: "rolled back").count == 2, "\(text)")
    #expect(text.split(separator: "\n").last?.hasPrefix("  \t") == true, "\(text)")
    #expect(await repl.type(":state").0 == "  { count = 0, items = {} }")
    #expect(await repl.type("increment").0 == "  − count = 0\n  + count = 1")
  }

  @Test func stateAndExpressionsAreLua() async throws {
    let repl = try Harness()
    await repl.type(#"{ type = "add", item = "milk" }"#)
    #expect(await repl.type(":state items").0 == #"  { "milk" }"#)
    #expect(await repl.type(":state items[1]").0 == #"  "milk""#)
    let sum = await repl.type("= state.count + 41").0
    #expect(sum == "41")
    let two = await repl.type("= #state.items, env.debug").0
    #expect(two == "1\nnil")
    let (write, _) = await repl.type("= (function() state.count = 5 end)()")
    #expect(write.contains("error:") && write.contains("state changes only in reduce"))
    #expect(await repl.type("= nope(").0.contains("error:") == false)  // incomplete: reads on
    #expect(await repl.session.prompt == ".. ")
    let call = await repl.type(")").0
    #expect(call == "  error: = nope(…:1: attempt to call a nil value (global 'nope')")
  }

  @Test func theLogMarksWhatEffectsSentAndUndoGoesBack() async throws {
    let repl = try Harness()
    await repl.type("increment", "later")
    await repl.clock.advance(by: .seconds(1))
    await repl.session.settle()
    #expect(repl.printed.withLock { $0.last } == "← { type = \"increment\" }\n  − count = 1\n  + count = 2")
    let listed = await repl.type(":log").0
    #expect(listed == """
        1 { type = "increment" }
        2 { type = "later" }
      ▶ 3 ← { type = "increment" }
      """)
    #expect(await repl.type(":undo").0 == """
        after 2 of 3: { type = "later" }
        − count = 2
        + count = 1
      """)
    #expect(await repl.type(":undo", ":undo", ":state").0.hasSuffix("  { count = 0, items = {} }"))
    #expect(await repl.type(":undo").0 == "  nothing to undo")
  }

  @Test func effectsAreListedAndCancelled() async throws {
    let repl = try Harness()
    await repl.type("later")
    let listed = await repl.type(":effects").0
    #expect(listed.hasPrefix("  #") && listed.hasSuffix(" effect.after"))
    let number = try #require(Int(listed.dropFirst(3).prefix { $0.isNumber }))
    #expect(await repl.type(":cancel \(number)").0 == "  cancelled #\(number) effect.after")
    await repl.session.settle()
    #expect(await repl.type(":effects").0 == "  no effects running")
    await repl.clock.advance(by: .seconds(5))
    #expect(await repl.type(":state count").0 == "  0")  // the cancelled effect sent nothing
    #expect(await repl.type(":cancel 99").0 == "  error: no effect #99 is running; :effects lists them")
  }

  @Test func helpEnvQuitAndUnknownCommands() async throws {
    let repl = try Harness(env: ["debug": true])
    let help = await repl.type(":help").0
    for command in ReplSession.commands { #expect(help.contains(command.name)) }
    #expect(await repl.type(":env").0 == "  { debug = true }")
    #expect(await repl.type(":nope").0 == "  error: :nope is no command; :help lists them")
    #expect(await repl.type(":q").1 == .quit)
    #expect(await repl.type(":quit").1 == .quit)
  }

  @Test func advanceMovesAPausedClock() async throws {
    let repl = try Harness()
    await repl.type("later")
    #expect(await repl.type(":advance 0.5").0.isEmpty)
    #expect(await repl.type(":advance 0.5").0 == "← { type = \"increment\" }\n  − count = 0\n  + count = 1")
    #expect(await repl.type(":advance soon").0.hasPrefix("  error: :advance takes a number of seconds"))
  }

  /// Time runs until `:pause`; stopped, a timer waits however long the wall clock goes, and
  /// `:advance` or `:resume` lets it go off.
  @Test func pauseStopsTimersUntilAdvanceOrResume() async throws {
    let repl = try Harness(clock: ReplClock())
    #expect(await repl.type(":advance 1").0
      == "  error: time runs by itself; :pause it first (or start with --paused)")
    // A minute: no load on the machine lets it pass before the pause (0.2 s once did, under
    // the sanitized suite).
    await repl.type("in_a_minute")
    let paused = await repl.type(":pause").0
    #expect(paused.hasPrefix("  time stopped at ") && paused.hasSuffix(":resume lets it run"))
    try await Task.sleep(for: .milliseconds(400))
    #expect(await repl.type(":state count").0 == "  0")  // its minute has not passed
    #expect(await repl.type(":advance 60").0 == "← { type = \"increment\" }\n  − count = 0\n  + count = 1")
    await repl.type("soon")
    // Running again, the 0.2 s timer goes off by itself: on a slow machine (the sanitized
    // suite) while `:resume` is still being answered, so it is looked for in both.
    let fired = "← { type = \"increment\" }\n  − count = 1\n  + count = 2"
    await repl.type(":resume")
    for _ in 0..<6000 where !repl.printed.withLock({ $0.contains(fired) }) {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(repl.printed.withLock { $0 }.sorted() == ["  time runs", fired].sorted())
  }

  @Test func reloadKeepsTheStateAndRefusesBrokenCode() async throws {
    let repl = try Harness()
    await repl.type("increment")
    try Self.source.replacingOccurrences(of: "state.count + 1", with: "state.count + 10")
      .write(to: repl.file, atomically: true, encoding: .utf8)
    let reloaded = await repl.type(":reload").0
    #expect(reloaded.hasPrefix("reloaded counter.lua in ") && reloaded.hasSuffix(" ms"))
    #expect(await repl.type("increment").0 == "  − count = 1\n  + count = 11")
    try "return {".write(to: repl.file, atomically: true, encoding: .utf8)
    #expect(await repl.type(":reload").0 == """
        error: counter.lua did not load: syntax error: counter.lua:1: unexpected symbol near \
      <eof>; the old code runs on
      """)
    #expect(await repl.type("increment").0 == "  − count = 11\n  + count = 21")
  }

  /// A reload whose `migrate` changes the state shows what it changed, and the next action's
  /// difference starts from there.
  @Test func migrateOnReloadIsShown() async throws {
    let repl = try Harness()
    await repl.type("increment")
    try (Self.source.replacingOccurrences(
      of: "return Counter", with: "function Counter.migrate(state) state.count = 100 end\nreturn Counter"))
      .write(to: repl.file, atomically: true, encoding: .utf8)
    let reloaded = await repl.type(":reload").0
    #expect(reloaded.hasSuffix("ms\n  − count = 1\n  + count = 100"))
    #expect(await repl.type("decrement").0 == "  − count = 100\n  + count = 99")
  }

  /// Tab offers commands at the start, action types where an action goes (from the source's
  /// comparisons and `Feature.actions`), and paths into the state after `:state ` and `state.`.
  @Test func completionOffersCommandsTypesAndStatePaths() async throws {
    let repl = try Harness()
    await repl.type(#"{ type = "add", item = "milk" }"#)
    let session = repl.session
    #expect(session.completions(of: ":st", in: ":st") == [":state"])
    #expect(session.completions(of: "inc", in: "inc") == ["increment"])
    #expect(session.completions(of: "", in: "").contains("later"))
    #expect(session.completions(of: "it", in: ":state it") == ["items"])
    #expect(session.completions(of: "items[", in: ":state items[") == ["items[1]"])
    #expect(session.completions(of: "state.c", in: "= state.c") == ["state.count"])
    #expect(session.completions(of: "st", in: "= st") == ["state"])
    // A type an effect sent back is offered too: the feature handles what it sends.
    #expect(session.completions(of: "po", in: "po").isEmpty)
    await repl.type("ping")
    #expect(session.completions(of: "po", in: "po") == ["pong"])
  }
}

/// `=` shows what no snapshot takes (a table inside itself, a class) on one line, each table
/// reached twice labelled; it failed with "cycle: the table contains itself".
@Suite struct ExpressionsOverCyclesTests {
  @Test func aTableInsideItselfIsShownLabelled() async throws {
    let repl = try ReplSessionTests.Harness()
    #expect(
      await repl.type("= (function() local t = { 1 } t.me = t return t end)()").0
        == "<1>{ [1] = 1, me = <1> }")
    #expect(
      await repl.type("= (function() local C = {} C.__index = C return C, 5 end)()").0
        == "<1>{ __index = <1> }\n5")
    // What a snapshot takes is laid out as before.
    #expect(await repl.type("= { a = { 1, 2 } }").0 == "{ a = { 1, 2 } }")
  }
}

extension ExpressionsOverCyclesTests {
  /// Tables used as keys are shown with their values, labelled when reached twice (they were
  /// snapshotted apart from the table, so no value was found under them: `[{}] = nil`).
  @Test func tablesAsKeysAreShownWithTheirValues() async throws {
    let repl = try ReplSessionTests.Harness()
    let cases: [(String, String)] = [
      ("= { [{}] = 1 }", "{ [{}] = 1 }"),
      (#"= { [{ a = 1 }] = "x", b = 2 }"#, #"{ b = 2, [{ a = 1 }] = "x" }"#),
      ("= (function() local k = {} return { [k] = 1, other = k } end)()",
       "{ other = <1>{}, [<1>] = 1 }"),
      ("= (function() local t = {} t[t] = t return t end)()", "<1>{ [<1>] = <1> }"),
      ("= (function() local k = {} k.me = k return { [k] = 1 } end)()",
       "{ [<1>{ me = <1> }] = 1 }"),
      ("= { [{ [{}] = 1 }] = 2 }", "{ [{ [{}] = 1 }] = 2 }"),
      ("= { 1, 2, [{}] = 3 }", "{ [1] = 1, [2] = 2, [{}] = 3 }"),
    ]
    for (typed, shown) in cases {
      #expect(await repl.type(typed).0 == shown, "\(typed)")
    }
  }
}

/// A session that ends with effects still running says which stop with it (a new user's
/// finding: piped, the roll they waited for never came, and nothing said why).
@Suite struct EffectsAtTheEndTests {
  @Test func theEffectsStillRunningAreNamed() async throws {
    let repl = try ReplSessionTests.Harness(
      source: """
        local effect = require("composable.effect")
        return { initial_state = function() return { n = 0 } end,
          reduce = function(state, action)
            if action.type == "go" then return effect.after(5, "done") end
            if action.type == "tick" then return effect.every(5, "done") end
            state.n = state.n + 1
          end }
        """)
    await repl.type("go", "go")
    repl.printed.withLock { $0 = [] }
    await repl.session.sayEffectsStoppingAtTheEnd()
    #expect(
      repl.printed.withLock { $0 }
        == [
          "  note: the session ends with 2 effects still running, which stop with it: "
            + "#0 effect.after, #1 effect.after. To let them finish first, end with "
            + ":advance SECONDS"
        ])
    await repl.type(":advance 5")
    repl.printed.withLock { $0 = [] }
    await repl.session.sayEffectsStoppingAtTheEnd()
    #expect(repl.printed.withLock { $0 }.isEmpty)
    // A timer never finishes: no advance is advised for it.
    await repl.type("tick")
    repl.printed.withLock { $0 = [] }
    await repl.session.sayEffectsStoppingAtTheEnd()
    #expect(
      repl.printed.withLock { $0 }
        == [
          "  note: the session ends with 1 effect still running, which stops with it: "
            + "#2 effect.every. It repeats until cancelled"
        ])
    await repl.type("go")
    repl.printed.withLock { $0 = [] }
    await repl.session.sayEffectsStoppingAtTheEnd()
    #expect(
      repl.printed.withLock { $0 }.first?.hasSuffix(
        ". To let those that end finish first, end with :advance SECONDS (effect.every repeats "
          + "until cancelled)") == true)
  }
}
