/// What `effect.file.*` and `file.*` inside `effect.run` can ask of the files (the same list as
/// `file_operations` in `Lua/effect.lua`), and what each answers with.
enum LuaFileOperation: String, CaseIterable {
  case read, write, append, list, remove, exists

  /// Whether the answer carries what was found (so an action must be named to take it).
  var answersWithData: Bool { self == .read || self == .list || self == .exists }

  /// "read, write, append, list, remove or exists", for messages.
  static let listed =
    allCases.dropLast().map(\.rawValue).joined(separator: ", ")
    + " or " + allCases.last!.rawValue
}
