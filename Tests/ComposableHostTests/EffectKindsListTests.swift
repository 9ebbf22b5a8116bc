@testable import ComposableHost
@testable import ComposableLua
import Foundation
import LuaKit
import Testing

/// Every kind of effect is defined once, in its file under Sources/ComposableLua/Effects, and
/// listed in `LuaEffectKinds.all`; its Lua side is copied from that file
/// (EffectKindsGeneratedTests). What is checked here against the list is what the copies do: a
/// constructor that makes no table of its kind, or a kind or a field the list does not know,
/// and a request kind's place in a session's recording and in the test API.
@Suite struct EffectKindsListTests {
  /// The tables composable.effect's constructors make, and the same tables passed through
  /// `composable.map_effect` (which adds `wrappers` to the kinds that carry actions): each as
  /// `kind` and its sorted keys. Every function the module holds is called, `effect.file.*`
  /// too, with arguments every constructor takes (a table or a function first: `effect.http`
  /// wants a table, `effect.run` a function).
  static func madeTables() throws -> [(kind: String, keys: [String], constructor: String)] {
    let vm = try LuaVM()
    let sandbox = try ComposableLuaLibrary.featureSandbox(in: vm, directory: nil)
    let listed = try vm.evaluate(
      """
      local effect = require("composable.effect")
      local composable = require("composable")
      -- Each constructor refuses an option it does not have: one set of options a try.
      local option_sets = { { cancel_in_flight = true }, { latest = false } }
      local made = {}
      local function note(name, e)
        if type(e) ~= "table" or type(e.kind) ~= "string" then return end
        -- map_effect reads the effects inside merges: a function given as one is not.
        local mapped_ok, mapped = pcall(composable.map_effect, e, function(a) return a end)
        for _, version in ipairs({ e, mapped_ok and mapped or e }) do
          local keys = {}
          for key in pairs(version) do keys[#keys + 1] = tostring(key) end
          table.sort(keys)
          made[#made + 1] = name .. " " .. version.kind .. " " .. table.concat(keys, ",")
        end
      end
      local function call(name, f)
        for _, first in ipairs({ { kind = "none" }, function() end }) do
          for _, options in ipairs(option_sets) do
            local ok, e = pcall(f, first, "id", options, options)
            if ok then note(name, e) end
          end
        end
      end
      for name, value in pairs(effect) do
        if type(value) == "function" then
          call("effect." .. name, value)
        elseif type(value) == "table" and value.kind ~= nil then
          note("effect." .. name, value)
        elseif type(value) == "table" and not name:find("_client$") then
          for inner, f in pairs(value) do call("effect." .. name .. "." .. inner, f) end
        end
      end
      table.sort(made)
      return table.concat(made, "\\n")
      """, chunkName: "=made", in: sandbox)
    return (listed.first?.stringValue ?? "").split(separator: "\n").map { line in
      let parts = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
      return (
        kind: parts[1], keys: parts[2].split(separator: ",").map(String.init),
        constructor: parts[0]
      )
    }
  }

  /// What is wrong with `kinds` as the list of effect kinds: one line per problem.
  static func problems(with kinds: [any LuaEffectKind.Type]) throws -> [String] {
    var problems: [String] = []
    let names = kinds.map { $0.name }
    if Set(names).count != names.count { problems.append("a kind is listed twice: \(names)") }
    let made = try madeTables()
    let docs = try String(contentsOf: Self.docsURL, encoding: .utf8)
    for kind in kinds {
      let name = kind.name
      if !made.contains(where: { $0.kind == name }) {
        problems.append(
          "\(name): no constructor in composable.effect.lua makes a table of this kind. To fix, "
            + "write effect.\(name) in \(kind).lua.constructor and run "
            + "scripts/generate-effect-kinds")
      }
      if let request = kind as? any LuaEffectRequestKind.Type {
        if RecordedExchange.Kind(rawValue: name) == nil {
          problems.append(
            "\(name): a session records no exchange of this kind. To fix, add it to "
              + "RecordedExchange.Kind and to the session's test writers")
        }
        let testTypes = try #require(
          ComposableLuaLibrary.annotations["composable.test.meta.lua"])
        if !docs.contains("\n| `\(request.testField)` |")
          || !testTypes.contains("---@field \(request.testField)? ")
        {
          problems.append(
            "\(name): TestStore.new's \(request.testField), which fakes it, is not in "
              + "docs/lua-api.md's table of TestStore.new fields or in "
              + "types/composable.test.meta.lua. To fix, describe it in both")
        }
        if !Self.hostCallExists(request.hostCall) {
          problems.append(
            "\(name): effect.run has no \(request.hostCall) to yield for it. To fix, add "
              + "effect.\(request.hostCall)_client to its lua.constructor")
        }
      }
    }
    // Every table a constructor makes is of a listed kind, with listed fields.
    for table in made {
      guard let kind = kinds.first(where: { $0.name == table.kind }) else {
        problems.append(
          "\(table.constructor) makes a table of kind \(table.kind), which is not in "
            + "LuaEffectKinds.all")
        continue
      }
      let unknown = table.keys.filter { $0 != "kind" && !kind.fields.contains($0) }
      if !unknown.isEmpty {
        problems.append(
          "\(table.constructor) makes a \(table.kind) with \(unknown), which are not in "
            + "\(kind).fields \(kind.fields)")
      }
    }
    // Every kind a session records is a request kind.
    let requestNames = kinds.filter { $0 is any LuaEffectRequestKind.Type }.map { $0.name }
    for recorded in RecordedExchange.Kind.allCases where !requestNames.contains(recorded.rawValue) {
      problems.append("RecordedExchange.Kind.\(recorded) is no request kind of LuaEffectKinds.all")
    }
    return problems
  }

  /// Whether composable.effect holds the functions an `effect.run` coroutine calls to yield
  /// `hostCall` (`effect.http_client` for `http`).
  static func hostCallExists(_ hostCall: String) -> Bool {
    guard let vm = try? LuaVM(),
      let sandbox = try? ComposableLuaLibrary.featureSandbox(in: vm, directory: nil),
      let found = try? vm.evaluate(
        "return type(require(\"composable.effect\").\(hostCall)_client) == \"table\"",
        chunkName: "=client", in: sandbox)
    else { return false }
    return found.first == true
  }

  static let docsURL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("docs/lua-api.md")

  @Test func everyKindIsDefinedEverywhere() throws {
    let problems = try Self.problems(with: LuaEffectKinds.all)
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  /// The tables checked are those composition makes too: `map_effect` adds `wrappers`.
  @Test func wrappedTablesAreChecked() throws {
    let made = try Self.madeTables()
    for name in ["send", "after", "every", "run", "http", "file"] {
      #expect(made.contains { $0.kind == name && $0.keys.contains("wrappers") }, "\(name)")
    }
  }

  /// `effect.file.*` are the operations FileEffect reads (LuaFileOperation).
  @Test func theFileOperationsAreTheLibrarys() throws {
    let constructors = Set(
      try Self.madeTables().filter { $0.kind == FileEffect.name }.map(\.constructor))
    #expect(constructors == Set(LuaFileOperation.allCases.map { "effect.file.\($0.rawValue)" }))
  }

  @Test func theDispatchIsTheList() {
    #expect(LuaEffectKinds.byName.count == LuaEffectKinds.all.count)
    #expect(
      LuaEffectKinds.requests.map { $0.name } == ["http", "file"],
      "the request kinds are those that reach the outside world")
    #expect(LuaEffectRunner.hostCallsListed == "send, sleep, http or file")
  }

  /// A kind listed whose constructor makes no table of it is refused: the check above would
  /// fail for it.
  @Test func aKindListedAloneIsRefused() throws {
    let problems = try Self.problems(with: LuaEffectKinds.all + [UnwrittenEffect.self])
    #expect(
      problems == [
        "unwritten: no constructor in composable.effect.lua makes a table of this kind. To fix, "
          + "write effect.unwritten in UnwrittenEffect.lua.constructor and run "
          + "scripts/generate-effect-kinds"
      ])
  }

  /// A constructor whose kind is missing from the list is refused too.
  @Test func aConstructorOfAnUnlistedKindIsRefused() throws {
    let problems = try Self.problems(
      with: LuaEffectKinds.all.filter { $0.name != "debounce" })
    #expect(problems.contains { $0.contains("kind debounce, which is not in") })
  }

  /// A field a constructor makes that the kind does not list is refused.
  @Test func aFieldTheKindDoesNotListIsRefused() throws {
    let problems = try Self.problems(
      with: LuaEffectKinds.all.map { $0.name == "throttle" ? ThrottleWithoutLatest.self : $0 })
    #expect(problems.contains { $0.contains("makes a throttle with [\"latest\"]") }, "\(problems)")
  }
}

/// A kind in the list alone.
private enum UnwrittenEffect: LuaEffectKind {
  static let name = "unwritten"
  static let fields: [String] = []
  static let lua = LuaEffectKindSource(constructor: "", annotation: "", row: "")
  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect { .none }
}

/// `throttle` with a field forgotten.
private enum ThrottleWithoutLatest: LuaEffectKind {
  static let name = "throttle"
  static let fields = ["effect", "id", "seconds"]
  static let lua = ThrottleEffect.lua
  static func effect(
    from table: LuaTable, at path: String, in interpreter: LuaEffectInterpreter
  ) throws(LuaFeatureError) -> LuaEffect { .none }
}
