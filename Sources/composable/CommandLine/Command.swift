import ComposableHost
import Foundation
import LuaKit

/// A subcommand of `composable`: its shape, made from its command line, then run.
protocol Command: Sendable {
  static var shape: CommandShape { get }
  init(_ arguments: ParsedArguments) throws(UsageError)
  func run() async throws
}

/// `composable [SUBCOMMAND] ...`: picks the subcommand (`run` when the first word names none),
/// reads its command line and runs it; prints help for `-h`, `--help` and `help [SUBCOMMAND]`.
enum CommandLineTool {
  static let name = "composable"
  static let abstract = "Runs Composable-Architecture features written in Lua."
  static let commands: [any Command.Type] = [
    Run.self, ReplCommand.self, ReplayCommand.self, TestCommand.self, Eval.self, NewCommand.self,
  ]
  static let defaultCommand: any Command.Type = Run.self
  /// This tool's version, which `--version` prints with the Lua it runs.
  static let version = "0.1.0"

  /// Runs the command line `words` (without the program's name); returns the exit status.
  static func main(_ words: [String]) async -> Int32 {
    if words.first == "--version" {
      print("\(name) \(version) (Lua \(LuaVM.luaRelease))")
      return 0
    }
    if let first = words.first, ["-h", "--help"].contains(first) {
      print(help, terminator: "")
      return 0
    }
    if words.first == "help" {
      guard let name = words.dropFirst().first else {
        print(help, terminator: "")
        return 0
      }
      guard let command = command(named: name) else {
        return usageError(UsageError("unknown subcommand '\(name)'"), nil)
      }
      print(command.shape.help, terminator: "")
      return 0
    }
    var chosen = defaultCommand
    var rest = words[...]
    if let first = words.first, let named = command(named: first) {
      chosen = named
      rest = rest.dropFirst()
    } else if let first = words.first, let nearest = mistypedSubcommand(first) {
      return usageError(
        UsageError("'\(first)' is neither a subcommand nor a file (did you mean '\(nearest)'?)"),
        nil)
    }
    return await run(chosen, Array(rest))
  }

  private static func run(_ command: any Command.Type, _ words: [String]) async -> Int32 {
    do {
      try await command.init(ParsedArguments(words, as: command.shape)).run()
      return 0
    } catch let error as UsageError {
      if error.isHelpRequest {
        print(command.shape.help, terminator: "")
        return 0
      }
      return usageError(error, command.shape)
    } catch let status as ExitStatus {
      return status.code
    } catch {
      printError("\(error)")
      return 1
    }
  }

  /// The subcommand `word` is a typo of (`tset` for `test`), when it names no file: a word that
  /// names neither would otherwise be taken as a feature for `run`, and fail as a missing file.
  static func mistypedSubcommand(_ word: String) -> String? {
    guard !word.hasPrefix("-"), !word.contains("/"), !word.contains("."),
      !FileManager.default.fileExists(atPath: word)
    else { return nil }
    return KnownActionTypes(commands.map { $0.shape.name }).nearest(to: word)
  }

  static func command(named name: String) -> (any Command.Type)? {
    commands.first { $0.shape.name == name }
  }

  /// What `composable --help` prints.
  static var help: String {
    var text = "OVERVIEW: \(abstract)\n\nUSAGE: \(name) <subcommand>\n\nOPTIONS:\n"
    text += HelpText.entry("-h, --help", "Show help information.")
    text += HelpText.entry("--version", "Show the version of composable and of its Lua.")
    text += "\nSUBCOMMANDS:\n"
    for command in commands {
      let isDefault = ObjectIdentifier(command) == ObjectIdentifier(defaultCommand)
      let label = isDefault ? "\(command.shape.name) (default)" : command.shape.name
      text += HelpText.entry(label, command.shape.abstract)
    }
    text += "\n  See '\(name) help <subcommand>' for detailed help.\n"
    return text
  }

  /// `error: MESSAGE` (as every error the command says), the usage, and where the help is; exit
  /// status 64 (EX_USAGE).
  private static func usageError(_ error: UsageError, _ shape: CommandShape?) -> Int32 {
    var text = "error: \(error.message)\n"
    if let shape {
      text += "Usage: \(shape.usage)\n"
      text += "  See '\(name) \(shape.name) --help' for more information.\n"
    } else {
      text += "  See '\(name) --help' for the subcommands.\n"
    }
    writeToStandardError(text)
    return 64
  }
}

@main
enum ComposableMain {
  static func main() async {
    let status = await CommandLineTool.main(Array(CommandLine.arguments.dropFirst()))
    fflush(nil)
    exit(status)
  }
}
