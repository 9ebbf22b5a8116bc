import LuaKit

/// What can go wrong with a Lua feature, each naming where: the file and line for script
/// errors (with the Lua traceback), the field for a malformed effect or action.
public enum LuaFeatureError: Error, Equatable, Sendable {
  /// The script did not load: a syntax error, an error while it ran, or no `reduce`.
  case load(file: String, message: String)
  /// The reducer raised, ran past its instruction budget or its memory. The state was rolled
  /// back to what it was before the action.
  case reduce(action: String, error: LuaError)
  /// What was sent is not an action (a table with a string `type`, or a string, holding data):
  /// refused before the reducer ran, so the state is as it was. `message` names the field.
  case malformedAction(action: String, message: String)
  /// The reducer returned something that is not an effect. The state was rolled back.
  case malformedEffect(action: String, path: String, message: String)
  /// An effect's own Lua code failed while it ran (in an `effect.run` coroutine).
  case effect(action: String, error: LuaError)
  /// A value could not be converted between Swift and Lua.
  case conversion(LuaError)
}

extension LuaFeatureError: CustomStringConvertible {
  public var description: String {
    switch self {
    case let .load(file, message):
      return "\(file) did not load: \(message)"
    case let .reduce(action, error):
      return "the reducer failed on \(action), and the state was rolled back: "
        + "\(error.withoutLibraryFrames)"
    case let .malformedAction(action, message):
      return "the action \(action) was refused before the reducer ran: \(message)"
    case let .malformedEffect(action, path, message):
      return "the reducer returned a malformed effect for \(action), and the state was rolled "
        + "back: \(path): \(message)"
    case let .effect(action, error):
      return "an effect of \(action) failed: \(error.withoutLibraryFrames)"
    case let .conversion(error):
      return error.description
    }
  }
}

extension LuaFeatureError {
  /// The action a failed save of the persisted state (`persist`) names in its `.effect` error.
  public static let stateSaveAction = "saving the state"

  /// What a save names when the feature's `persist.is_duplicate` raised or was stopped: the
  /// feature's doing, not the files'.
  public static let isDuplicateAction = "persist.is_duplicate"

  /// The action a save names when it found its file changed by another writer, and wrote the
  /// state beside it (`StateSaverConflict`).
  public static let stateSavedAsideAction = "saving the state beside its file"

  /// Whether this is a save of the persisted state that failed (`.effect` of
  /// `stateSaveAction`), or went beside its file (`stateSavedAsideAction`): a host counts it as
  /// a save that failed, not as an effect.
  public var isStateSave: Bool {
    if case .effect(Self.stateSaveAction, _) = self { return true }
    return isStateSavedAside
  }

  /// Whether a save found its file changed by another writer and wrote the state beside it.
  public var isStateSavedAside: Bool {
    if case .effect(Self.stateSavedAsideAction, _) = self { return true }
    return false
  }

  /// For a failed save (`isStateSave`), why it failed, without the words about the effect;
  /// nil for any other error.
  public var stateSaveReason: String? {
    guard isStateSave, case let .effect(_, error) = self else { return nil }
    return error.withoutLibraryFrames.description
  }

  /// Whether a save failed in the feature, not on the files: on what the state holds (a
  /// function kept in it) or in `persist.is_duplicate` (it raised). Its fix is in the feature,
  /// not in the data directory. A save's failure on the files carries no Lua traceback
  /// (`saveError`); one raised by the feature's code does.
  public var isAboutTheSavedState: Bool {
    switch self {
    case .conversion, .effect(Self.stateSaveAction, .conversion): return true
    case let .effect(Self.stateSaveAction, .runtime(message, traceback)):
      return !traceback.isEmpty || message.hasPrefix(Self.isDuplicateAction + " ")
    case .effect(Self.stateSaveAction, _), .effect(Self.stateSavedAsideAction, _): return false
    case .effect: return true  // `persist.is_duplicate`, as a save at exit meets it
    default: return false
    }
  }
}
