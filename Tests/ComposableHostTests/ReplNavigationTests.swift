import Composable
import ComposableLua
import Foundation
import LuaKit
import Testing

@testable import ComposableHost

/// The REPL knows a feature's stacks and presentations: it prints a screen pushed or popped
/// and a destination presented or closed, lists them on `:screens`, sends `path#2 action` to a
/// screen, completes addresses, and `:goto` says where a jump lands.
@Suite struct ReplNavigationTests {
  typealias Harness = ReplSessionTests.Harness

  static let source = """
    local composable = require("composable")
    local function editor(state, action)
      if action.type == "type" then
        state.text = state.text .. action.text
      elseif action.type == "done" then
        return composable.dismiss
      end
    end
    local function counter(state, action)
      if action.type == "increment" then
        state.count = state.count + 1
      elseif action.type == "close" then
        return composable.dismiss
      elseif action.type == "ask" then
        state.sheet = composable.alert{ title = "Sure?", buttons = {
          { label = "Yes", action = "yes" }, { label = "No", role = "cancel" } } }
      elseif action.type == "edit" then
        state.sheet = composable.present("editor", { text = "" })
      end
    end
    local detail = composable.combine(
      composable.presents{ state = "sheet", action = "sheet", destinations = { editor = editor } },
      counter)
    return {
      initial_state = function() return { path = composable.stack_state() } end,
      reduce = composable.combine(
        composable.stack{ state = "path", action = "path", screens = { detail = detail } },
        function(state, action)
          if action.type == "open" then composable.push(state.path, "detail", { count = 0 }) end
        end),
    }
    """

  /// The lines marked `▸` in what was printed.
  func navigationLines(_ printed: String) -> [String] {
    printed.split(separator: "\n").filter { $0.hasPrefix("  ▸ ") }.map {
      String($0.dropFirst(4))
    }
  }

  @Test func pushesPopsAndPresentationsArePrintedAsTheyHappen() async throws {
    let repl = try Harness(source: Self.source)
    #expect(navigationLines(await repl.type("open").0) == ["path: #1 detail"])
    #expect(navigationLines(await repl.type("open").0) == ["path: #1 detail › #2 detail"])
    #expect(navigationLines(await repl.type("path#2 edit").0) == ["path#2 sheet: editor"])
    // An action that moves nothing prints no such line.
    #expect(navigationLines(await repl.type(#"path#2 sheet { type = "type", text = "hi" }"#).0)
      == [])
    #expect(navigationLines(await repl.type("path#2 sheet done").0) == ["path#2 sheet: closed"])
    #expect(
      navigationLines(await repl.type("path#1 ask").0) == [
        #"path#1 sheet: alert "Sure?" — Yes → yes, No"#
      ])
    // A popped screen takes what it presented along: the stack's line says it all.
    #expect(navigationLines(await repl.type("path#1 close").0) == ["path: no screens"])
  }

  @Test func addressedActionsReachTheScreenTheyName() async throws {
    let repl = try Harness(source: Self.source)
    await repl.type("open", "open", "path#1 edit")
    let typed = await repl.type(#"path#1 sheet { type = "type", text = "a" }"#).0
    #expect(typed == #"  − path.screens[1].state.sheet.state.text = ""\#n  + path.screens[1].state.sheet.state.text = "a""#)
    #expect(await repl.type("path#2 increment").0.contains("+ path.screens[2].state.count = 1"))
    // What the session recorded is the action itself, as a test sends it.
    let log = await repl.type(":log").0
    #expect(log.contains(#"{ action = { action = { text = "a", type = "type" }, type = "sheet" }, id = 1, type = "path" }"#))
    // A typo in an addressed action is named as one in a plain action is.
    #expect(await repl.type("path#2 incremnt").0.hasSuffix("(did you mean increment?)"))
    // A line that looks like an address and is none says why.
    #expect(
      await repl.type("pathx#1 increment").0
        == "  error: pathx is no stack of this feature (its stacks: path); a screen's address is "
        + "its stack and id: path#1 <action>")
    #expect(
      await repl.type("path#one increment").0
        == "  error: path#one: a screen's id after # is an integer (:screens lists them): "
        + "path#1 <action>")
    #expect(
      await repl.type("path#1").0
        == "  error: path#1 is an address: the action goes after it (path#1 <action>)")
    // An id as `:screens` writes it: digits, no sign, no leading zero.
    for odd in ["path#+2 increment", "path#02 increment", "path#-1 increment"] {
      #expect(await repl.type(odd).0.contains("a screen's id after # is an integer"), "\(odd)")
    }
    // Other lines that are not actions are Lua's to explain.
    #expect(await repl.type("path increment").0.contains("error: the line is not an action"))
    // An address to a screen that is gone: the stack's own error, naming the id.
    let gone = await repl.type("path#9 increment").0
    #expect(
      gone.contains(
        "stack: an action arrived for path screen 9, which is not on the stack (its screens: 1, 2)"
      ))
  }

  @Test func screensListsEveryPlaceByItsAddress() async throws {
    let repl = try Harness(source: Self.source)
    #expect(await repl.type(":screens").0 == "  path: no screens")
    await repl.type("open", "path#1 ask")
    #expect(await repl.type(":screens").0 == """
        path: #1 detail
        path#1 sheet: alert "Sure?" — Yes → yes, No
        Send to one by its address: path#1 <action> (dismiss closes it)
      """)
    let plain = try Harness()
    #expect(await plain.type(":screens").0.contains("declares no stack or presentation"))
  }

  @Test func addressesAreCompleted() async throws {
    let repl = try Harness(source: Self.source)
    await repl.type("open", "open", "path#2 edit")
    // The screens' addresses; not `path` itself, a type the session learnt, which is no action
    // one types alone.
    #expect(repl.session.completions(of: "pa", in: "pa") == ["path#1", "path#2"])
    #expect(repl.session.completions(of: "path#2", in: "path#2") == ["path#2"])
    #expect(repl.session.completions(of: "sh", in: "path#2 sh") == ["sheet"])
    #expect(repl.session.completions(of: "sh", in: "path#1 sh") == [])
    // After an address, the action types.
    #expect(repl.session.completions(of: "incr", in: "path#1 incr") == ["increment"])
  }

  @Test func aJumpSaysWhereItLands() async throws {
    let repl = try Harness(source: Self.source)
    await repl.type("open", "path#1 edit", "open")
    let back = await repl.type(":goto 1").0
    #expect(navigationLines(back) == ["path#1 sheet: closed", "path: #1 detail"], "\(back)")
    let forth = await repl.type(":goto 3").0
    #expect(navigationLines(forth) == ["path: #1 detail › #2 detail", "path#1 sheet: editor"])
  }

  @Test func aSessionThatPushesAndDismissesIsATestThatPasses() async throws {
    let repl = try Harness(source: Self.source)
    await repl.type(
      "open", "path#1 edit", #"path#1 sheet { type = "type", text = "x" }"#,
      "path#1 sheet done", "open", "path#2 close", "path#1 ask", "path#1 sheet yes")
    let test = repl.file.deletingLastPathComponent().appendingPathComponent("nav_test.lua")
    let said = await repl.type(":test \(test.path)").0
    #expect(said.contains("; it passes (composable test "), "\(said)")
    let text = try String(contentsOf: test, encoding: .utf8)
    #expect(text.contains("store:receive({"))
    #expect(text.contains(#"type = "dismiss""#))
  }

  static let hostileSource = """
    local composable = require("composable")
    return {
      initial_state = function() return { path = composable.stack_state() } end,
      reduce = composable.combine(
        composable.stack{ state = "path", action = "path", screens = { x = function() end } },
        composable.presents{ state = "sheet", action = "sheet" },
        function(state, action)
          if action.type == "push" then
            for _ = 1, action.n or 1 do composable.push(state.path, action.screen or "x") end
          elseif action.type == "ask" then
            state.sheet = composable.alert{ title = action.title, buttons = {
              { label = action.label, action = "yes" } } }
          end
        end),
    }
    """

  @Test func whatAPlaceSaysIsOneSafeLineOfBoundedLength() async throws {
    let repl = try Harness(source: Self.hostileSource)
    // A label or a title from the network may hold escape sequences and line breaks: written
    // out, never sent to the terminal, never a fake prompt.
    let asked = await repl.type(
      #"{ type = "ask", title = "t\27]0;PWNED\7", label = "L\27[2J\r\n> fake prompt" }"#
    ).0
    let line = navigationLines(asked).first ?? ""
    #expect(!line.contains("\u{1B}") && !line.contains("\u{07}") && !line.contains("\r"), "\(line)")
    #expect(line.contains(#"\n> fake prompt"#), "\(line)")
    #expect(!(await repl.type(":screens").0.contains("\u{1B}")))
    // A long stack: its bottom two and top ten screens, and how many between.
    let pushed = navigationLines(await repl.type(#"{ type = "push", n = 40 }"#).0)
    #expect(
      pushed == [
        "path: #1 x › #2 x › … 28 more › #31 x › #32 x › #33 x › #34 x › #35 x › #36 x › #37 x › "
          + "#38 x › #39 x › #40 x"
      ])
    // A long title: capped, the rest counted.
    let title = String(repeating: "t", count: 1_000)
    let long = navigationLines(await repl.type(#"{ type = "ask", title = "\#(title)", label = "ok" }"#).0)
    #expect(long.first?.hasSuffix("more bytes)") == true, "\(long)")
    #expect((long.first?.utf8.count ?? 0) < 400)
    // A label of one character that joins 100,000 combining marks: capped by its bytes.
    let marks = "a" + String(repeating: "\u{301}", count: 100_000)
    let joined = navigationLines(
      await repl.type(#"{ type = "ask", title = "t", label = "\#(marks)" }"#).0)
    #expect((joined.first?.utf8.count ?? 0) < 400, "\(joined.first?.utf8.count ?? 0)")
  }

  /// Two stacks that keep the same field at two levels, under two action names: told apart by
  /// the kinds of screen they run, so each address reaches its own.
  @Test func stacksSharingAFieldAtTwoLevelsHaveTheirOwnAddresses() async throws {
    let repl = try Harness(
      source: """
        local composable = require("composable")
        local function leaf(state, action)
          if action.type == "inc" then state.n = (state.n or 0) + 1 end
        end
        local node = composable.combine(
          composable.stack{ state = "path", action = "inner", screens = { leaf = leaf } },
          function(state, action)
            if action.type == "open" then composable.push(state.path, "leaf") end
          end)
        return {
          initial_state = function() return { path = composable.stack_state() } end,
          reduce = composable.combine(
            composable.stack{ state = "path", action = "path", screens = { node = node } },
            function(state, action)
              if action.type == "open" then
                composable.push(state.path, "node", { path = composable.stack_state() })
              end
            end),
        }
        """)
    #expect(navigationLines(await repl.type("open").0) == ["path: #1 node", "path#1 inner: no screens"])
    #expect(navigationLines(await repl.type("path#1 open").0) == ["path#1 inner: #1 leaf"])
    #expect(
      await repl.type("path#1 inner#1 inc").0
        == "  + path.screens[1].state.path.screens[1].state.n = 1")
  }
}

/// A line about a place is cut at its byte limit, at the start of a character, and only when
/// the cut is longer than its note.
@Suite struct ReplNavigationLineCutTests {
  static let limit = ReplNavigation.maximumLineLength

  @Test func aFewBytesPastTheLimitAreShown() {
    let line = String(repeating: "x", count: Self.limit + 5)
    #expect(ReplNavigation.oneLine(line) == line)
  }

  @Test func aCharacterTheLimitSplitsIsLeftWhole() {
    for before in Self.limit - 3...Self.limit {
      let line = String(repeating: "x", count: before) + String(repeating: "🍕", count: 40)
      let cut = ReplNavigation.oneLine(line)
      #expect(!cut.contains("\u{FFFD}"), "\(cut)")
      let kept = cut.components(separatedBy: "… (").first ?? ""
      #expect(line.hasPrefix(kept) && kept.utf8.count <= Self.limit, "\(cut)")
      #expect(cut.hasSuffix("… (\(line.utf8.count - kept.utf8.count) more bytes)"), "\(cut)")
    }
  }
}
