import LuaKit

extension LuaError {
  /// The error with its traceback's frames in the `composable` library taken out (`composable:
  /// 254: in upvalue 'reduce'`, `composable.effect:...`), and in the sandbox's own chunk
  /// (`sandbox:66: in global 'require'`): they are the library calling the feature's reducers,
  /// or checking what it was given, and point at nothing its author wrote. A traceback left with
  /// no frame goes too. A feature's own file (`composable.lua:3:`, named with its extension)
  /// stays.
  var withoutLibraryFrames: LuaError {
    switch self {
    case let .runtime(message, traceback):
      return .runtime(message: message, traceback: Self.withoutLibraryFrames(traceback))
    case let .instructionLimit(limit, message, traceback):
      return .instructionLimit(
        limit: limit, message: message, traceback: Self.withoutLibraryFrames(traceback))
    case let .timeLimit(seconds, message, traceback):
      return .timeLimit(
        seconds: seconds, message: message, traceback: Self.withoutLibraryFrames(traceback))
    default:
      return self
    }
  }

  static func withoutLibraryFrames(_ traceback: String) -> String {
    guard traceback.contains("\tcomposable") || traceback.contains("\tsandbox:") else {
      return traceback
    }
    let frame = #/^\t(?:composable(\.([a-z_]+))?|sandbox):\d+: /#
    let kept = traceback.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
      guard let match = line.firstMatch(of: frame) else { return true }
      return match.output.2 == "lua"
    }
    return kept.count <= 1 ? "" : kept.joined(separator: "\n")
  }
}
