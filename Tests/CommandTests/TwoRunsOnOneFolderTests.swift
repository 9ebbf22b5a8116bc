import Foundation
import TestSupport
import Testing

/// Two runs of one feature on one data directory: the second to save finds the file changed
/// since it loaded it, leaves it, and saves its state beside it, saying where (a new user's
/// finding: the last run to exit wrote over the other's changes, and both ended 0).
@Suite struct TwoRunsOnOneFolderTests {
  static let feature = """
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "shop.saved.lua", debounce = 0 },
      initial_state = function() return { items = {} } end,
      reduce = function(state, action) table.insert(state.items, action.name) end,
    }
    """

  static func add(_ name: String) -> String { #"{ type = "add", name = "\#(name)" }"# + "\n" }

  @Test func theSecondToSaveSavesBesideTheFile() throws {
    let directory = try makeTemporaryDirectory("two-runs")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("shop.lua")
    try Self.feature.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    // A starts (nothing saved yet) and saves its first item.
    let (first, input, output, errors) = try Command.start(
      ["run", feature.path, "--data", data.path])
    input.fileHandleForWriting.write(Data(Self.add("A-milk").utf8))
    _ = output.read(until: #"+ items[1] = "A-milk""#)
    // A's save on disk (it comes after the change is shown)...
    let file = data.appendingPathComponent("shop.saved.lua")
    let deadline = Date().addingTimeInterval(20)
    while (try? String(contentsOf: file, encoding: .utf8))?.contains("A-milk") != true,
      Date() < deadline
    {
      usleep(10_000)
    }
    // ...B starts from it, adds, saves and ends.
    let second = try Command.run(
      ["run", feature.path, "--data", data.path], input: Self.add("B-bread"))
    #expect(second.status == 0, "\(second.errors)")
    // A goes on, and ends: its save finds B's file.
    input.fileHandleForWriting.write(Data(Self.add("A-eggs").utf8))
    try input.fileHandleForWriting.close()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    first.waitUntilExit()
    #expect(first.terminationStatus == 1, "\(text)")
    let saved = try String(contentsOf: file, encoding: .utf8)
    #expect(saved.contains(#"items = { "A-milk", "B-bread" }"#), "\(saved)")
    let names = try FileManager.default.contentsOfDirectory(atPath: data.path)
    let aside = try #require(names.first { $0.hasPrefix("shop.saved.lua.conflict-") }, "\(names)")
    let mine = try String(contentsOf: data.appendingPathComponent(aside), encoding: .utf8)
    #expect(mine.contains(#"items = { "A-milk", "A-eggs" }"#), "\(mine)")
    #expect(
      text.contains(
        "error: the state was saved beside its file in the data directory \(data.path): "
          + "shop.saved.lua was changed by another writer (a second run on the same data "
          + "directory, or an edit) since the state was loaded from it, so it is left as it is: "
          + "the state is in \(aside), where its later saves go too. To fix, keep the one you "
          + "want as shop.saved.lua, and run one at a time on a data directory\n"), "\(text)")
    #expect(
      text.hasSuffix("error: 1 save of the state failed (exit status 1)\n"), "\(text)")
  }

  /// Runs started together, each loaded, then each sent its action at the same moment: each
  /// run's last state is on disk, in the file or beside it, and a run whose state went beside
  /// it ends 1 naming where. (An attacker's finding: the read before a save and its rename were
  /// far apart; 8 runs saving at once all read the old file, 7 states were lost, all ended 0.)
  @Test func runsSavingAtOnceLoseNothing() throws {
    let directory = try makeTemporaryDirectory("many-runs")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("shop.lua")
    try Self.feature.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    _ = try Command.run(["run", feature.path, "--data", data.path], input: Self.add("start"))
    let count = 5
    var runs: [(process: Process, input: Pipe, output: Pipe, errors: Pipe)] = []
    for _ in 0..<count {
      runs.append(try Command.start(["run", feature.path, "--data", data.path]))
    }
    for run in runs { _ = run.output.read(until: "Type actions") }  // each has loaded
    for (index, run) in runs.enumerated() {
      run.input.fileHandleForWriting.write(Data(Self.add("run-\(index)").utf8))
    }
    for run in runs { try run.input.fileHandleForWriting.close() }
    var saidBeside = 0
    for run in runs {
      let text = String(
        decoding: run.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      run.0.waitUntilExit()
      let beside = text.contains("error: the state was saved beside its file")
      if beside { saidBeside += 1 }
      #expect(run.0.terminationStatus == (beside ? 1 : 0), "\(text)")
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: data.path)
    let files = try names.map {
      try String(contentsOf: data.appendingPathComponent($0), encoding: .utf8)
    }
    for index in 0..<count {
      #expect(
        files.contains { $0.contains(#"items = { "start", "run-\#(index)" }"#) },
        "run \(index)'s state is nowhere: \(names)")
    }
    #expect(saidBeside == names.count - 1, "\(names)")
  }

  /// The REPL (`composable repl`, and `run` at a terminal) ends 1 when its state went beside
  /// the file, as a piped run does: it counted the save as an effect that failed (2), or, found
  /// at the end, not at all (0).
  @Test(arguments: ["add", ":undo"])
  func theREPLEndsOneWhenItsStateWentBeside(then next: String) throws {
    let directory = try makeTemporaryDirectory("repl-beside")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("shop.lua")
    try Self.feature.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    _ = try Command.run(["run", feature.path, "--data", data.path], input: Self.add("start"))
    let (process, input, output, errors) = try Command.start(
      ["repl", feature.path, "--data", data.path])
    input.fileHandleForWriting.write(Data(Self.add("mine").utf8))
    _ = output.read(until: #""mine""#)
    // The save of "mine" (debounce 0) on disk, then another writer's file in its place.
    let file = data.appendingPathComponent("shop.saved.lua")
    let deadline = Date().addingTimeInterval(20)
    while (try? String(contentsOf: file, encoding: .utf8))?.contains("mine") != true,
      Date() < deadline
    {
      usleep(10_000)
    }
    try #"return { items = { "theirs" } }"#.write(to: file, atomically: true, encoding: .utf8)
    input.fileHandleForWriting.write(Data((next == "add" ? Self.add("more") : next + "\n").utf8))
    try input.fileHandleForWriting.close()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      + String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 1, "\(text)")
    // The folder named: the file's name alone is relative to it.
    #expect(
      text.contains(
        "the state was saved beside its file in the data directory \(data.path): shop.saved.lua "
          + "was changed by another writer"), "\(text)")
    #expect(!text.contains("an effect of saving"), "\(text)")
    #expect(try String(contentsOf: file, encoding: .utf8) == #"return { items = { "theirs" } }"#)
  }
}
