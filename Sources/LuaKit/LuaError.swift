/// Everything that can go wrong between Swift and Lua, in one type.
///
/// Each case carries what a person needs to find the problem: the chunk and line in Lua's own
/// `chunk:line:` form, the Lua traceback for errors raised while Lua code ran, and the path of
/// the offending field for conversions (`state.todos[3].title: expected string, got boolean`).
public enum LuaError: Error, Equatable, Sendable {
  /// The source did not compile. `incompleteInput` is true when the source merely ended too
  /// soon (an unclosed `function`, string or table), so a REPL can ask for another line.
  case syntax(message: String, incompleteInput: Bool)
  /// Lua code raised an error. `message` starts with `chunk:line:` when Lua knew the place.
  case runtime(message: String, traceback: String)
  /// Lua code tried to allocate past the VM's memory cap.
  case memoryLimit(limit: Int)
  /// Lua code ran past the instruction budget of one call.
  case instructionLimit(limit: Int, message: String, traceback: String)
  /// A call ran past its time limit (work no instruction count sees, such as comparing long
  /// strings over and over).
  case timeLimit(seconds: Double, message: String, traceback: String)
  /// A value could not be converted between Swift and Lua. `path` names the field.
  case conversion(path: String, message: String)
}

extension LuaError: CustomStringConvertible {
  public var description: String {
    switch self {
    case let .syntax(message, _):
      return "syntax error: \(message)"
    case let .runtime(message, traceback):
      return traceback.isEmpty ? message : "\(message)\n\(traceback)"
    case let .memoryLimit(limit):
      return "memory limit of \(LuaLimits.describe(bytes: limit)) exceeded"
    case let .instructionLimit(_, message, traceback), let .timeLimit(_, message, traceback):
      return traceback.isEmpty ? message : "\(message)\n\(traceback)"
    case let .conversion(path, message):
      return "\(Self.shortened(path)): \(message)"
    }
  }

  /// A path too long to read (200 levels of `.x`) as its start and its end.
  static func shortened(_ path: String) -> String {
    guard path.count > 120 else { return path }
    return "\(path.prefix(60)) … \(path.suffix(40))"
  }

  /// The message without the traceback: what a one-line report shows.
  public var message: String {
    switch self {
    case let .runtime(message, _), let .instructionLimit(_, message, _),
      let .timeLimit(_, message, _):
      return message
    default: return description
    }
  }
}
