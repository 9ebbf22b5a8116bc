import ComposableLua
import Foundation
import TestSupport
import Testing

@testable import ComposableHost

/// The REPL reads action types from the feature's folder: lists and comparisons are found,
/// and a file made to be slow to scan (openings never closed) costs one pass; a large file or a
/// link out of the folder is not read.
@Suite struct KnownActionTypesTests {
  @Test func listsAndComparisonsAreFound() {
    let source = """
      Feature.actions = { "add", "remove" }
      if action.type == "toggle" then end
      Other.actions = { "x" } -- and one more { not a list
      """
    #expect(KnownActionTypes.found(inSource: source) == ["add", "remove", "toggle", "x"])
  }

  /// The ways a feature writes a comparison (an attacker's list of false "names no action type"
  /// notes): single quotes, the type on the right, `~=`, a local set from `.type`; and the ways
  /// it hides types (a table of handlers, a pattern), which `dispatchesOnType` sees.
  @Test func everyFormOfAComparisonIsFound() {
    let source = """
      local kind2 = action.type
      if action.type == 'quoted' then end
      if "yoda" == action.type then end
      if msg.type ~= "not_this" then end
      if kind2 == "aliased" then end
      if a == "unrelated" then end
      if action.type == "add-item" then end
      """
    #expect(
      KnownActionTypes.found(inSource: source)
        == ["quoted", "yoda", "not_this", "aliased", "add-item"])
    #expect(!KnownActionTypes.dispatchesOnType(inSource: source))
    for dispatching in [
      "local h = handlers[action.type]", "local k = action.type; f = t2[ k ]",
      "if action.type:match('^set_') then end", "if t then x = map[t] end",
    ] {
      #expect(KnownActionTypes.dispatchesOnType(inSource: dispatching), "\(dispatching)")
    }
    #expect(!KnownActionTypes.dispatchesOnType(inSource: "local x = list[i]; y = s[action.id]"))
  }

  /// 20,000 openings with no closing brace took minutes with a regex over each; now one pass.
  /// (The test would time out, not fail, if it went back: no time is measured.)
  @Test func openingsNeverClosedAreOnePass() {
    let source = String(repeating: "x.actions={", count: 20_000) + #" Feature.actions = { "late" "#
    #expect(KnownActionTypes.found(inSource: source) == [])
    let closed = String(repeating: "x.actions={", count: 20_000) + #""one"}"#
    #expect(KnownActionTypes.found(inSource: closed) == ["one"])
  }

  @Test func largeFilesAndLinksBesideTheFeatureAreNotRead() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("known-types-\(UUID())")
    let outside = FileManager.default.temporaryDirectory
      .appendingPathComponent("known-types-outside-\(UUID()).lua")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer {
      try? FileManager.default.removeItem(at: directory)
      try? FileManager.default.removeItem(at: outside)
    }
    let feature = directory.appendingPathComponent("feature.lua")
    try #"F.actions = { "mine" }"#.write(to: feature, atomically: true, encoding: .utf8)
    let large = #"F.actions = { "large" }"# + String(repeating: " ", count: 2 << 20)
    try large.write(
      to: directory.appendingPathComponent("data.lua"), atomically: true, encoding: .utf8)
    try #"F.actions = { "outside" }"#.write(to: outside, atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(
      at: directory.appendingPathComponent("link.lua"), withDestinationURL: outside)
    #expect(KnownActionTypes.found(besides: feature) == ["mine"])
  }

  /// A type with `/` or `:` (`"todos/clear"`), a local declared `<const>`, and comparisons across
  /// lines are found; a name that is a string's contents, or a number, is not a type's holder.
  @Test func namespacedTypesAndConstLocals() {
    let source = """
      local ty <const> = action.type
      if ty == "todos/clear" then end
      if "app:reset" ~=
        action.type then end
      if x == "not" or 1 == "no" or "a" == "b" then end
      Feature.actions = { "ns/listed" }
      """
    #expect(
      KnownActionTypes.found(inSource: source) == ["todos/clear", "app:reset", "ns/listed"])
  }

  /// A megabyte of one long name, and of names and comparisons, scanned once each: the regex the
  /// scan had tried every place a name could begin, and a 40 KB string in a module stalled the
  /// first note for 100 s (an attacker's finding).
  @Test func aLongNameIsScannedInOnePass() {
    let long = "local s = \"" + String(repeating: "a", count: 1 << 20) + "\"\n"
      + "if action.type == s or s == 'x' then end"
    #expect(KnownActionTypes.found(inSource: long).isEmpty)
    let many = String(repeating: "aaaa.bbbb == ", count: 1 << 16) + "'x'"
    #expect(KnownActionTypes.found(inSource: many).isEmpty)
    let dotted = "local t = " + String(repeating: "a.", count: 1 << 19) + "type"
    #expect(KnownActionTypes.typeNames(inSource: dotted).contains("t"))
  }

  /// The scan is made again once the feature's file changed (a hot reload): a type the new code
  /// names is known, one it no longer names is not.
  @Test func theScanFollowsTheCodeAsItChanges() throws {
    let directory = try makeTemporaryDirectory("known-types-scanned")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("feature.lua")
    try #"F.actions = { "first" }"#.write(to: feature, atomically: false, encoding: .utf8)
    let scanned = ScannedActionTypes(file: feature, modules: nil)
    #expect(scanned.value.types == ["first"])
    try #"F.actions = { "second", "third" }"#.write(to: feature, atomically: false, encoding: .utf8)
    #expect(scanned.value.types == ["second", "third"])
    try FileManager.default.removeItem(at: feature)
    #expect(scanned.value.types == [])
  }

  /// A module the code no longer requires after a reload is not read for types: its types were
  /// still known (no note for them) and suggested (an attacker's finding).
  @Test func aModuleNoLongerRequiredIsNotScanned() throws {
    let directory = try makeTemporaryDirectory("known-types-reload")
    defer { try? FileManager.default.removeItem(at: directory) }
    try "return function(state, action) if action.type == 'inc' then state.n = 1 end end".write(
      to: directory.appendingPathComponent("h.lua"), atomically: false, encoding: .utf8)
    let feature = directory.appendingPathComponent("f.lua")
    try """
      local h = require("h")
      return { initial_state = function() return { n = 0 } end, reduce = h }
      """.write(to: feature, atomically: false, encoding: .utf8)
    let loaded = try LuaFeature(contentsOf: feature)
    let scanned = ScannedActionTypes(file: feature, modules: loaded.moduleFiles)
    #expect(scanned.value.types == ["inc"])
    try """
      return {
        initial_state = function() return { n = 0 } end,
        reduce = function(state, action) if action.type == "dec" then state.n = -1 end end,
      }
      """.write(to: feature, atomically: false, encoding: .utf8)
    try loaded.swap(toContentsOf: feature)
    #expect(scanned.value.types == ["dec"])
  }
}
