@testable import ComposableLua
import Foundation
import Testing

/// The library's constructors, their LuaLS annotations and docs/lua-api.md's table of effects
/// are copied from each kind's file (`LuaEffectKindSource`); these tests fail when a copy
/// differs. Run with `COMPOSABLE_WRITE_GENERATED=1` (scripts/generate-effect-kinds does), they
/// write the copies instead.
@Suite struct EffectKindsGeneratedTests {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  static var writing: Bool {
    ProcessInfo.processInfo.environment["COMPOSABLE_WRITE_GENERATED"] == "1"
  }

  @Test(arguments: LuaEffectKindsGeneratedFile.allCases)
  func theCopyIsTheKindsOwn(_ file: LuaEffectKindsGeneratedFile) throws {
    let url = Self.root.appendingPathComponent(file.rawValue)
    let text = try String(contentsOf: url, encoding: .utf8)
    let regenerated = try file.regenerated(text)
    if Self.writing, regenerated != text {
      try Data(regenerated.utf8).write(to: url)
      return
    }
    #expect(
      regenerated == text,
      """
      \(file.rawValue) differs from the kinds' files in Sources/ComposableLua/Effects between \
      its GENERATED markers. To fix, edit the kind's file and run scripts/generate-effect-kinds
      """)
  }

  /// A kind's part lands between the markers, in the order of the list, and nothing outside
  /// them moves; text without markers is refused with a message saying how to fix it.
  @Test func thePartsGoBetweenTheMarkers() throws {
    let text =
      "before\n-- BEGIN GENERATED: effect kinds\nold\n-- END GENERATED: effect kinds\nafter"
    let made = try LuaEffectKindsGeneratedFile.library.regenerated(
      text, from: [SendEffect.self, CancelEffect.self])
    #expect(
      made == """
        before
        -- BEGIN GENERATED: effect kinds

        \(SendEffect.lua.constructor)

        \(CancelEffect.lua.constructor)

        -- END GENERATED: effect kinds
        after
        """)
    #expect(throws: LuaEffectKindsGeneratedFile.MarkersMissing.self) {
      try LuaEffectKindsGeneratedFile.docs.regenerated("no markers")
    }
    let message = "\(LuaEffectKindsGeneratedFile.MarkersMissing(file: "docs/lua-api.md"))"
    #expect(
      message
        == "docs/lua-api.md has no lines marking BEGIN GENERATED: effect kinds and then "
        + "END GENERATED: effect kinds. To fix, put them back around the kinds' part")
  }

  /// Every constructor runs under the library's prelude: the generated library loads under
  /// plain Lua's rules and makes each kind (EffectKindsListTests checks their fields).
  @Test func theLibraryMakesEveryKind() throws {
    let source = try String(
      contentsOf: Self.root.appendingPathComponent(LuaEffectKindsGeneratedFile.library.rawValue),
      encoding: .utf8)
    for kind in LuaEffectKinds.all {
      #expect(source.contains(kind.lua.constructor), "\(kind.name)")
      #expect(kind.lua.row.hasPrefix("| `effect.\(kind.name)"), "\(kind.name)")
    }
  }
}
