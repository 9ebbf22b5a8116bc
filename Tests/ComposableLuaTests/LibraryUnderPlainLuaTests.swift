import Foundation
import TestSupport
import Testing

/// The Lua library's own files, run by plain `lua5.4` with a stub host
/// (`fixtures/plain-lua/library_check.lua`): the library is Lua that stands on its own, and
/// what the host expects of it holds outside the host too.
@Suite struct LibraryUnderPlainLuaTests {
  @Test func theLibraryRunsUnderLua54WithAStubHost() throws {
    let lua = URL(fileURLWithPath: "/usr/bin/lua5.4")
    try #require(
      FileManager.default.isExecutableFile(atPath: lua.path),
      "lua5.4 is missing: scripts/install-deps installs it")
    let process = Process()
    process.executableURL = lua
    process.arguments = [
      repositoryRoot.appendingPathComponent(
        "Tests/ComposableLuaTests/fixtures/plain-lua/library_check.lua").path,
      repositoryRoot.path,
    ]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(printed)")
    #expect(printed == "ok\n")
  }
}
