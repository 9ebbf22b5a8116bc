import ComposableLua
import Foundation
import LuaKit

/// `composable eval FILE`: runs a Lua file in the feature sandbox and prints what it returns.
struct Eval: Command {
  static let shape = CommandShape(
    name: "eval", abstract: "Run a Lua file in the feature sandbox and print what it returns.",
    arguments: [.init(name: "file", help: "The Lua file. Modules beside it can be required.")])

  let file: String

  init(_ arguments: ParsedArguments) {
    file = arguments.string("file") ?? ""
  }

  func run() throws {
    let url = URL(pathGiven: file)
    let source: LuaString
    // As `run` says a feature it cannot read: exit 1, not 64 (the arguments were well formed).
    do { source = LuaString(bytes: try LuaSourceFile.bytes(of: url)) } catch {
      printError("cannot read \(file): \(error.reason)")
      throw ExitStatus.failure
    }
    let vm = try LuaVM()
    let sandbox = try ComposableLuaLibrary.featureSandbox(
      in: vm, directory: url.deletingLastPathComponent())
    do {
      let results = try vm.evaluate(source, chunkName: url.lastPathComponent, in: sandbox)
      for result in results { print(result) }
    } catch {
      printError("\(error)")
      throw ExitStatus.failure
    }
  }
}
