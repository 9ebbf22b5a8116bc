import ArgumentParser
import ComposableLua
import Foundation

/// `composable test [paths]`: runs the Lua tests (`*_test.lua`) under the paths.
struct TestCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "test", abstract: "Run Lua tests (*_test.lua files) and report.")

  enum Output: String, ExpressibleByArgument, CaseIterable {
    case readable, tap, junit
  }

  @Argument(help: "Test files or directories to search (default: the current directory).")
  var paths: [String] = []

  @Option(help: "Only the tests whose names contain this.")
  var filter: String?

  @Option(help: "readable, tap or junit.")
  var output: Output = .readable

  func run() async throws {
    let runner = LuaTestRunner()
    let files = runner.discover(paths.isEmpty ? ["."] : paths)
    var results: [LuaTestResult] = []
    for file in files {
      results += await runner.run(file: file, filter: filter)
    }
    switch output {
    case .readable: print(LuaTestReport.readable(results))
    case .tap: print(LuaTestReport.tap(results))
    case .junit: print(LuaTestReport.junit(results))
    }
    if results.contains(where: { if case .failed = $0.outcome { true } else { false } }) {
      throw ExitCode.failure
    }
  }
}
