import ArgumentParser
import ComposableLua
import Foundation
import LuaKit

@main
struct ComposableCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "composable",
    abstract: "Runs Composable-Architecture features written in Lua.",
    subcommands: [
      Run.self, ReplCommand.self, ReplayCommand.self, TestCommand.self, Eval.self, NewCommand.self,
    ],
    defaultSubcommand: Run.self
  )
}

/// `composable eval FILE`: runs a Lua file in the feature sandbox and prints what it returns.
struct Eval: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "eval",
    abstract: "Run a Lua file in the feature sandbox and print what it returns.")

  @Argument(help: "The Lua file. Modules beside it can be required.")
  var file: String

  func run() throws {
    let url = URL(fileURLWithPath: file)
    let source: String
    do { source = try LuaSourceFile.read(url) } catch {
      throw ValidationError("cannot read \(file): \(error.reason)")
    }
    let vm = try LuaVM()
    let sandbox = try ComposableLuaLibrary.featureSandbox(
      in: vm, directory: url.deletingLastPathComponent())
    do {
      let results = try vm.evaluate(source, chunkName: url.lastPathComponent, in: sandbox)
      for result in results { print(result) }
    } catch {
      printError("\(error)")
      throw ExitCode.failure
    }
  }
}
