import ComposableLua
import Foundation
import TestSupport
import Testing

/// `swift test` runs the Lua tests too: every `*_test.lua` under `Tests/` and `examples/` (the
/// deliberately failing fixtures excepted), one case per file, each test's failures reported
/// with their Lua file and line.
@Suite struct LuaTestFilesTests {
  static let files: [String] = LuaTestRunner()
    .discover([repositoryRoot.appendingPathComponent("examples").path, repositoryRoot.appendingPathComponent("Tests").path])
    .map { $0.path.replacingOccurrences(of: repositoryRoot.path + "/", with: "") }

  @Test func thereAreLuaTestsToRun() {
    #expect(Self.files.contains("examples/counter/counter_test.lua"))
  }

  @Test(arguments: files)
  func luaTestFilePasses(_ path: String) async {
    let results = await LuaTestRunner().run(file: repositoryRoot.appendingPathComponent(path))
    #expect(!results.isEmpty, "\(path) has no tests")
    for result in results {
      if case let .failed(failures) = result.outcome {
        Issue.record(Comment(rawValue: "\(path): \(result.name)\n\(failures.joined(separator: "\n"))"))
      }
    }
  }
}
