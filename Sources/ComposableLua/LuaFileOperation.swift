/// What `effect.file.*` and `file.*` inside `effect.run` can ask of the files (the same list as
/// `file_operations` in `Lua/effect.lua`), and what each answers with.
enum LuaFileOperation: String, CaseIterable {
  case read, write, append, list, remove, exists

  /// "read, write, append, list, remove or exists", for messages.
  static let listed = allCases.dropLast().map(\.rawValue).joined(separator: ", ")
    + " or " + allCases.last!.rawValue
}
