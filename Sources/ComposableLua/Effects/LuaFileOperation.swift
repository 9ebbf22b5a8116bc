/// What `effect.file.*` and `file.*` inside `effect.run` can ask of the files (the same list as
/// `file_operations` in composable.effect.lua: EffectKindsListTests checks it), and what each
/// answers with.
enum LuaFileOperation: String, CaseIterable {
  case read, write, append, list, remove, exists

  /// Whether the answer carries what was found (so an action must be named to take it).
  var answersWithData: Bool { self == .read || self == .list || self == .exists }

  /// Whether it changes what the files hold (a write, an append or a removal).
  var changesFiles: Bool { self == .write || self == .append || self == .remove }

  /// Whether the request carries what to write (`contents`, or `data` with `json = true`).
  var writesContents: Bool { self == .write || self == .append }

  /// The fields a request may have, in the order the messages list them.
  var requestFields: [String] {
    switch self {
    case .write, .append: ["path", "contents", "data", "json", "response"]
    case .read: ["path", "json", "response"]
    case .list, .remove, .exists: ["path", "response"]
    }
  }

  /// "read, write, append, list, remove or exists", for messages.
  static let listed =
    allCases.dropLast().map(\.rawValue).joined(separator: ", ")
    + " or " + allCases.last!.rawValue
}
