@testable import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// When two effects an action returned do the same, for a reload's check and a replay: an
/// effect that does nothing is one whatever it is written as (`effect.none`, `effect.merge()`,
/// a concatenation of nones), and a merge is the same written flat or nested. (A replay took
/// `effect.merge()` for an effect where the recording had none, and the check of a reload
/// refused the same.)
@Suite struct EffectSamenessTests {
  static let none: LuaValue = ["kind": "none"]
  static let a: LuaValue = ["kind": "send", "action": ["type": "a"]]
  static let b: LuaValue = ["kind": "send", "action": ["type": "b"]]
  static let c: LuaValue = ["kind": "send", "action": ["type": "c"]]

  static func merge(_ parts: LuaValue...) -> LuaValue {
    ["kind": "merge", "effects": .table(LuaTable(array: parts))]
  }

  static func concat(_ parts: LuaValue...) -> LuaValue {
    ["kind": "concat", "effects": .table(LuaTable(array: parts))]
  }

  /// Every way of writing nothing, against every other.
  @Test func everyEffectThatDoesNothingIsOne() {
    let nothing: [LuaValue] = [
      .nil, Self.none, Self.merge(), Self.concat(), Self.merge(Self.none, Self.none),
      Self.concat(Self.merge(), Self.none), Self.merge(Self.concat(Self.merge(Self.none))),
    ]
    for one in nothing {
      #expect(RecordedAction.plainEffect(one) == .nil, "\(one)")
      for other in nothing { #expect(RecordedAction.sameEffect(one, other)) }
      #expect(!RecordedAction.sameEffect(one, Self.a), "\(one)")
    }
  }

  /// The same parts in the same order, however they are grouped, and a lone part as itself.
  @Test func theSamePartsInTheSameOrderAreOneEffect() {
    let same: [(LuaValue, LuaValue)] = [
      (Self.merge(Self.a), Self.a),
      (Self.concat(Self.none, Self.a, Self.merge()), Self.a),
      (Self.merge(Self.a, Self.merge(Self.b, Self.c)), Self.merge(Self.a, Self.b, Self.c)),
      (Self.concat(Self.concat(Self.a, Self.b), Self.c), Self.concat(Self.a, Self.b, Self.c)),
      (Self.merge(Self.none, Self.a, Self.none, Self.b), Self.merge(Self.a, Self.b)),
    ]
    for (one, other) in same {
      #expect(RecordedAction.sameEffect(one, other), "\(one) against \(other)")
    }
  }

  /// What runs otherwise is another effect: the order of parts, a merge for a concatenation
  /// (one runs its parts at once, the other one after another), a merge's part as a
  /// concatenation inside it, a cancellable of nothing (it still cancels).
  @Test func effectsThatRunOtherwiseDiffer() {
    let differ: [(LuaValue, LuaValue)] = [
      (Self.merge(Self.a, Self.b), Self.merge(Self.b, Self.a)),
      (Self.merge(Self.a, Self.b), Self.concat(Self.a, Self.b)),
      (Self.merge(Self.a, Self.concat(Self.b, Self.c)), Self.merge(Self.a, Self.b, Self.c)),
      (["kind": "cancellable", "id": "x", "effect": Self.none], .nil),
      (Self.merge(Self.a), Self.b),
    ]
    for (one, other) in differ {
      #expect(!RecordedAction.sameEffect(one, other), "\(one) against \(other)")
    }
  }

  /// An effect a wrapper holds (`cancellable`, `debounce`: its `effect`) is made plain too: a
  /// cancellable of a merge of one part is the cancellable of that part (an attacker's finding:
  /// a replay said they differ); of none it is still no plain none.
  @Test func aWrappedEffectIsMadePlainToo() {
    func cancellable(_ inner: LuaValue) -> LuaValue {
      ["kind": "cancellable", "id": "x", "effect": inner]
    }
    #expect(RecordedAction.sameEffect(cancellable(Self.merge(Self.a)), cancellable(Self.a)))
    #expect(RecordedAction.sameEffect(cancellable(Self.merge()), cancellable(Self.none)))
    #expect(!RecordedAction.sameEffect(cancellable(Self.none), .nil))
    #expect(!RecordedAction.sameEffect(cancellable(Self.a), cancellable(Self.b)))
  }

  /// A part after a hole (`effect.merge(nil, e)`) keeps its place; a table of parts with a key
  /// that is no position is not read as a merge (compared as written).
  @Test func partsAreTakenInTheOrderOfTheirPlaces() {
    var holed = LuaTable()
    holed[2] = Self.a
    holed[4] = Self.b
    let merge: LuaValue = ["kind": "merge", "effects": .table(holed)]
    #expect(RecordedAction.sameEffect(merge, Self.merge(Self.a, Self.b)))
    #expect(!RecordedAction.sameEffect(merge, Self.merge(Self.b, Self.a)))
    var named = LuaTable()
    named["first"] = Self.a
    let odd: LuaValue = ["kind": "merge", "effects": .table(named)]
    #expect(RecordedAction.plainEffect(odd) == odd)
  }

  /// Through the REPL: a reload that wrote `effect.none` as `effect.merge()` is crossed by time
  /// travel; one that returns a real effect there is refused.
  @Test func aReloadThatWroteNothingAnotherWayIsCrossed() async throws {
    func source(_ returned: String) -> String {
      """
      local effect = require("composable.effect")
      return {
        initial_state = function() return { n = 0 } end,
        reduce = function(state, action)
          if action.type == "go" then
            state.n = state.n + 1
            return \(returned)
          end
        end,
      }
      """
    }
    let repl = try ReplSessionTests.Harness(
      source: source("effect.none"), clock: ReplClock(paused: false))
    await repl.type("go")
    for (returned, crossed) in [
      ("effect.merge()", true), ("effect.concat(effect.none, effect.merge())", true),
      ("nil", true), (#"effect.send({ type = "other" })"#, false),
    ] {
      try source(returned).write(to: repl.file, atomically: true, encoding: .utf8)
      await repl.type(":reload")
      let went = await repl.type(":goto 0").0
      if crossed {
        #expect(went.hasPrefix("  at the start"), "\(returned): \(went)")
        await repl.type(":goto 1")
      } else {
        #expect(went.contains("action 1's effect"), "\(returned): \(went)")
      }
      #expect(try repl.session.feature.state() == ["n": 1], "\(returned)")
    }
  }

  /// A long effect that differs in one field is shown field by field, as a state is; a short
  /// one, or one of another kind, whole.
  @Test func aLongEffectsDifferenceIsShownFieldByField() {
    func request(_ title: String) -> LuaValue {
      [
        "kind": "cancellable", "id": ["scope": ["element": 1, "stack": "path"], "id": "info"],
        "effect": [
          "kind": "http", "response": "info_loaded",
          "request": [
            "method": "GET", "url": .string(LuaString("http://127.0.0.1:8731/catalog.json?title=\(title)")),
            "headers": ["Accept": "application/json"],
          ],
        ],
      ]
    }
    #expect(
      ReplayReport.effectDifference(request("Dune"), request("DUNE"), colored: false) == [
        #"− effect.effect.request.url = "http://127.0.0.1:8731/catalog.json?title=Dune""#,
        #"+ effect.effect.request.url = "http://127.0.0.1:8731/catalog.json?title=DUNE""#,
      ])
    let short = ReplayReport.effectDifference(Self.a, Self.b, colored: false)
    #expect(short == [#"− effect = { action = { type = "a" }, kind = "send" }"#, #"+ effect = { action = { type = "b" }, kind = "send" }"#])
    let kinds = ReplayReport.effectDifference(request("Dune"), .nil, colored: false)
    #expect(kinds.count == 1 && kinds[0].hasPrefix("− effect = { effect = "), "\(kinds)")
  }

  /// Numbers as Lua compares them: `100` and `100.0` are one (a timer of either waits alike),
  /// in keys too; `100.5` is not `100`.
  @Test func numbersAreComparedAsLuaComparesThem() {
    let after: (LuaValue) -> LuaValue = { ["kind": "after", "seconds": $0, "action": "tick"] }
    #expect(RecordedAction.sameEffect(after(.integer(100)), after(.number(100.0))))
    #expect(RecordedAction.sameEffect(after(.integer(0)), after(.number(-0.0))))
    #expect(!RecordedAction.sameEffect(after(.integer(100)), after(.number(100.5))))
    #expect(!RecordedAction.sameEffect(after(.number(0x1p63)), after(.integer(.max))))
    let keyed: (LuaValue) -> LuaValue = {
      ["kind": "send", "action": .table(LuaTable(entries: [$0: "x", "type": "t"]))]
    }
    #expect(RecordedAction.sameEffect(keyed(.integer(2)), keyed(.number(2.0))))
  }
}
