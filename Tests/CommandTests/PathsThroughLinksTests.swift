import Foundation
import TestSupport
import Testing

/// A path with `..` after a symlink, given to a command, opens what a shell opens: the file
/// beside the folder the link points to. Foundation's relative URLs took `lnk/..` as text, and
/// `composable run lnk/../f.lua` ran `f.lua` beside the link, another feature than `cat`,
/// `lua5.4` or an editor opened there.
@Suite struct PathsThroughLinksTests {
  /// `real/f.lua` and a decoy `f.lua` beside `lnk -> real/sub`: each says which it is.
  static func folder() throws -> URL {
    let root = try makeTemporaryDirectory("paths-through-links")
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("real/sub"), withIntermediateDirectories: true)
    for (file, who) in [("real/f.lua", "real"), ("f.lua", "decoy")] {
      let feature = """
        local composable = require("composable")
        local Feature = {}
        function Feature.initial_state() return { who = "\(who)", n = 0 } end
        function Feature.reduce(state, action) state.n = state.n + 1 end
        Feature.persist = composable.persist { path = "n.lua", debounce = 0 }
        return Feature
        """
      try Data(feature.utf8).write(to: root.appendingPathComponent(file))
    }
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("lnk").path, withDestinationPath: "real/sub")
    return root
  }

  @Test func runLoadsTheFeatureTheKernelOpens() throws {
    let root = try Self.folder()
    defer { try? FileManager.default.removeItem(at: root) }
    for path in ["lnk/../f.lua", "./lnk/../f.lua", "lnk//../f.lua", root.path + "/lnk/../f.lua"] {
      let outcome = try Command.run(
        ["run", "--data", "lnk/../data", path], input: "bump\n", in: root)
      #expect(outcome.status == 0, "\(path): \(outcome.errors)")
      #expect(outcome.output.contains(#"who = "real""#), "\(path): \(outcome.output)")
      #expect(!outcome.output.contains("decoy"), "\(path): \(outcome.output)")
    }
    // `--data lnk/../data` is `real/data`, as `mkdir lnk/../data` makes it: the state saved
    // there, none beside the link.
    let saved = try String(
      contentsOf: root.appendingPathComponent("real/data/n.lua"), encoding: .utf8)
    #expect(saved.contains("n = 4"), "\(saved)")
    #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("data").path))
  }

  @Test func evalAndTestOpenTheFileTheKernelOpens() throws {
    let root = try Self.folder()
    defer { try? FileManager.default.removeItem(at: root) }
    try Data("return 'real'\n".utf8).write(to: root.appendingPathComponent("real/v.lua"))
    try Data("return 'decoy'\n".utf8).write(to: root.appendingPathComponent("v.lua"))
    // `v.lua/` names a folder, as `cat v.lua/` has it: not the file.
    let slashed = try Command.run(["eval", "real/v.lua/"], in: root)
    #expect(slashed.status == 1 && slashed.output.isEmpty, "\(slashed.output)")
    let evaluated = try Command.run(["eval", "lnk/../v.lua"], in: root)
    #expect(
      evaluated.output.contains("real") && !evaluated.output.contains("decoy"),
      "\(evaluated.output)\(evaluated.errors)")
    let test = """
      describe("which", function()
        it("is real", function() assert.equal(1, 1) end)
      end)
      """
    try Data(test.utf8).write(to: root.appendingPathComponent("real/f_test.lua"))
    let tested = try Command.run(["test", "lnk/../f_test.lua"], in: root)
    #expect(tested.status == 0, "\(tested.output)\(tested.errors)")
    #expect(tested.output.contains("1 passed"), "\(tested.output)")
  }

  /// Under a current folder whose path is longer than the system takes whole (over 4,096
  /// bytes, reached a folder at a time), `eval f.lua` and `eval x/../f.lua` open the file, as
  /// `cat` does: the path made absolute as text could not be opened (an attacker's finding).
  /// `run --watch` there says it cannot watch: it watched `/`, and passed over every save.
  @Test func aFileUnderAFolderTooDeepToNameWholeOpens() throws {
    let root = try makeTemporaryDirectory("paths-deep")
    defer { try? FileManager.default.removeItem(at: root) }
    let composable = try builtProduct("composable").path
    let script = """
      cd "$1" || exit 9
      for i in $(seq 1 24); do mkdir -p "$2" && cd -P "$2" || exit 9; done
      mkdir -p x && printf 'return "deep"\\n' > f.lua || exit 9
      "$3" eval f.lua && "$3" eval x/../f.lua
      status=$?
      # Watched, it would be watched at `/`: said, and the run does not start.
      printf 'return { initial_state = function() return {} end, reduce = function() end }' > w.lua
      "$3" run --watch w.lua < /dev/null > /dev/null
      [ $? -eq 1 ] || status=8
      cd "$1" && rm -rf "$2"
      exit $status
      """
    let outcome = try Command.run(
      ["-c", script, "sh", root.path, String(repeating: "d", count: 200), composable],
      executable: URL(fileURLWithPath: "/bin/sh"))
    #expect(outcome.status == 0, "\(outcome.errors)")
    #expect(outcome.output == "\"deep\"\n\"deep\"\n", "\(outcome.output)\(outcome.errors)")
    #expect(
      outcome.errors.contains("error: cannot watch w.lua: its path is ")
        && outcome.errors.contains("To fix, run it from a folder nearer the root"),
      "\(outcome.errors)")
  }
}
