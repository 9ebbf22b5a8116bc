/// The parts of files that are copied from the kinds' definitions (`LuaEffectKindSource`), in
/// the order of `LuaEffectKinds.all`, each between a line holding `BEGIN GENERATED: effect
/// kinds` and one holding `END GENERATED: effect kinds`. Editing them by hand is undone by
/// scripts/generate-effect-kinds, which writes them, and refused by EffectKindsGeneratedTests.
enum LuaEffectKindsGeneratedFile: String, CaseIterable, Sendable {
  case library = "Sources/ComposableLua/Lua/composable.effect.lua"
  case annotations = "Sources/ComposableLua/Lua/types/composable.effect.meta.lua"
  case docs = "docs/lua-api.md"

  static let begin = "BEGIN GENERATED: effect kinds"
  static let end = "END GENERATED: effect kinds"

  /// What goes between the markers: the kinds' parts, each as written in its file.
  func generated(from kinds: [any LuaEffectKind.Type]) -> String {
    switch self {
    case .library: kinds.map { $0.lua.constructor }.joined(separator: "\n\n")
    case .annotations: kinds.map { $0.lua.annotation }.joined(separator: "\n\n")
    case .docs:
      (["| effect | what it does |", "|---|---|"] + kinds.map { $0.lua.row })
        .joined(separator: "\n")
    }
  }

  /// `text` (this file's contents) with what is between its markers replaced by the kinds'
  /// parts: the marker lines and everything else kept byte for byte.
  func regenerated(
    _ text: String, from kinds: [any LuaEffectKind.Type] = LuaEffectKinds.all
  ) throws(MarkersMissing) -> String {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let first = lines.firstIndex(where: { $0.contains(Self.begin) }),
      let last = lines.firstIndex(where: { $0.contains(Self.end) }), first < last
    else { throw MarkersMissing(file: rawValue) }
    // A blank line either side, so that Markdown reads the table as a table.
    lines.replaceSubrange((first + 1)..<last, with: ["", generated(from: kinds), ""])
    return lines.joined(separator: "\n")
  }

  struct MarkersMissing: Error, CustomStringConvertible {
    let file: String
    var description: String {
      "\(file) has no lines marking \(LuaEffectKindsGeneratedFile.begin) and then "
        + "\(LuaEffectKindsGeneratedFile.end). To fix, put them back around the kinds' part"
    }
  }
}
