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
}
