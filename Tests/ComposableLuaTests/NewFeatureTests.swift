import Foundation
import TestSupport
import Testing

/// `composable new NAME`: what it writes passes `composable test` and luacheck at once, and it
/// never writes over what is there.
@Suite struct NewFeatureTests {
  @Test func aNewFeaturePassesItsTestsAndLuacheck() throws {
    let directory = try makeTemporaryDirectory("new")
    defer { try? FileManager.default.removeItem(at: directory) }
    let made = try Command.run(["new", "tally"], in: directory)
    #expect(made.status == 0, "\(made.errors)")
    let folder = directory.appendingPathComponent("tally")
    let written = try FileManager.default.subpathsOfDirectory(atPath: folder.path).sorted()
    #expect(written == [
      ".composable", ".composable/types", ".composable/types/composable.effect.meta.lua",
      ".composable/types/composable.json.meta.lua", ".composable/types/composable.meta.lua",
      ".composable/types/composable.test.meta.lua", ".composable/types/feature.meta.lua",
      ".luacheckrc", ".luarc.json", "tally.lua", "tally_test.lua",
    ])
    let tested = try Command.run(["test", "tally"], in: directory)
    #expect(tested.status == 0, "\(tested.output)")
    #expect(tested.output.hasSuffix("2 passed, 0 failed\n"))
    let ran = try Command.run(
      ["run", "tally/tally.lua", "--data", directory.appendingPathComponent("data").path,
       "--wait", "0"], input: "increment\n", in: directory)
    #expect(ran.output.contains("+ count = 1"))
    // luacheck with the settings written beside the feature (Debian's lua-check, installed by
    // scripts/install-deps).
    let luacheck = Process()
    luacheck.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    luacheck.arguments = ["luacheck", "--no-color", "."]
    luacheck.currentDirectoryURL = folder
    let output = Pipe()
    luacheck.standardOutput = output
    try luacheck.run()
    let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    luacheck.waitUntilExit()
    #expect(luacheck.terminationStatus == 0, "\(report)")
    #expect(report.contains("0 warnings / 0 errors in 2 files"))
    // The editor settings name the annotations written beside them.
    let luarc = try JSONSerialization.jsonObject(
      with: Data(contentsOf: folder.appendingPathComponent(".luarc.json"))) as? [String: Any]
    #expect(luarc?["workspace.library"] as? [String] == [".composable/types"])
  }

  @Test func whatIsThereIsNeverWrittenOver() throws {
    let directory = try makeTemporaryDirectory("new")
    defer { try? FileManager.default.removeItem(at: directory) }
    let folder = directory.appendingPathComponent("tally")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
    try "mine".write(to: folder.appendingPathComponent("tally.lua"), atomically: true, encoding: .utf8)
    let again = try Command.run(["new", "tally"], in: directory)
    #expect(again.status == 64)
    #expect(again.errors.contains(
      "tally already exists; nothing was written. To fix, choose another name or move it."))
    #expect(try String(contentsOf: folder.appendingPathComponent("tally.lua"), encoding: .utf8)
      == "mine")
    let badName = try Command.run(["new", "9lives"], in: directory)
    #expect(badName.status == 64)
    #expect(badName.errors.contains("9lives: a feature's name is a Lua module name"))
  }
}
