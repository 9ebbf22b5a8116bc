import Foundation
import TestSupport
import Testing

/// An append that fails part way (a full disk; here the file size limit, `ulimit -f`, which
/// stops a write where the disk would) writes nothing: the part that went is cut off. It left
/// a torn record and answered `ok = false`, and a feature trying again found it twice (an
/// attacker's finding, on a full tmpfs).
@Suite struct AppendThatFailsTests {
  static let feature = """
    local effect = require("composable").effect
    return {
      initial_state = function() return {} end,
      reduce = function(state, action)
        if action.type == "append" then
          return effect.file.append{
            path = "log.txt", contents = string.rep("z", action.size), response = "got" }
        elseif action.type == "got" then
          state.ok, state.error = action.ok, action.error
        end
      end,
    }
    """

  @Test func anAppendCutShortLeavesTheFileAsItWas() throws {
    let directory = try makeTemporaryDirectory("append-fails")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("log.lua")
    try Self.feature.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    // The data directory claimed, and the file there, before the limit.
    let first = try Command.run(
      ["run", feature.path, "--data", data.path], input: "{ type = \"append\", size = 4 }\n")
    #expect(first.status == 0, "\(first.errors)")
    let log = data.appendingPathComponent("log.txt")
    #expect(try Data(contentsOf: log).count == 4)
    // 8 blocks of 512 bytes: the next append of 10,000 bytes stops part way, as on a full disk.
    // SIGXFSZ ignored (ignored stays ignored across exec): the write fails with EFBIG instead.
    let outcome = try Command.run(
      [
        "-c", #"trap '' XFSZ; ulimit -f 8; exec "$0" run "$1" --data "$2""#,
        try builtProduct("composable").path, feature.path, data.path,
      ], input: "{ type = \"append\", size = 10000 }\n",
      executable: URL(fileURLWithPath: "/bin/sh"))
    #expect(outcome.output.contains("+ ok = false"), "\(outcome.output)\(outcome.errors)")
    #expect(try Data(contentsOf: log) == Data("zzzz".utf8), "the file kept a part of the append")
  }
}
