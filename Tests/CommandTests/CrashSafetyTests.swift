import Foundation
import LuaKit
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `composable run` with a feature that persists, saving a 600 KB state every few milliseconds,
/// is killed with SIGKILL again and again: half the time at a moment of no note, half the time the
/// moment a save's temporary file appears (so the kill lands inside a write). After each kill
/// the saved file must hold a whole state, and the next start must restore it.
@Suite struct CrashSafetyTests {
  static let feature = """
    local composable = require("composable")
    local effect = composable.effect
    return {
      persist = composable.persist{ path = "big.saved.lua", debounce = 0 },
      initial_state = function()
        local items = {}
        for i = 1, 20000 do items[i] = "item " .. i end
        return { count = 0, check = 0, items = items }
      end,
      reduce = function(state, action)
        if action.type == "start" then
          return effect.every(0.005, "bump")
        elseif action.type == "bump" then
          state.count = state.count + 1
          state.check = state.count * 7
        end
      end,
    }
    """

  /// The saved state, checked whole: nil when there is no file yet.
  static func savedCount(in directory: URL) throws -> Int? {
    let file = directory.appendingPathComponent("big.saved.lua")
    guard FileManager.default.fileExists(atPath: file.path) else { return nil }
    let text = try String(contentsOf: file, encoding: .utf8)
    let state = try LuaDataFile.read(Array(text.utf8), chunkName: "big.saved.lua")
    guard case let .integer(count) = state.count, case let .table(items) = state.items else {
      Issue.record("not a state: \(text.prefix(200))")
      return nil
    }
    #expect(state.check == .integer(count * 7))
    #expect(items.count == 20000)
    #expect(items[.integer(20000)] == "item 20000")
    return count
  }

  /// The temporary files that saves left behind (a kill between creating one and renaming it).
  static func leftovers(in directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
      $0.hasSuffix(".tmp")
    }
  }

  @Test func killingTheHostMidSaveNeverLosesTheSavedState() async throws {
    let executable = try builtProduct("composable")
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID())")
    let data = root.appendingPathComponent("data")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let featureFile = root.appendingPathComponent("big.lua")
    try Self.feature.write(to: featureFile, atomically: true, encoding: .utf8)

    var lastCount = 0
    var killsInsideAWrite = 0
    let rounds = 16
    for round in 0..<rounds {
      let process = Process()
      process.executableURL = executable
      process.arguments = ["run", featureFile.path, "--data", data.path, "--wait", "600"]
      let input = Pipe()
      process.standardInput = input
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      try input.fileHandleForWriting.write(contentsOf: Data("start\n".utf8))
      try input.fileHandleForWriting.close()
      // Never a hung test: whatever happens, the process is gone within ten minutes (a
      // sanitized run on a loaded machine is slow; a kill before the test is done fails it).
      let pid = process.processIdentifier
      DispatchQueue.global().asyncAfter(deadline: .now() + 600) { kill(pid, SIGKILL) }

      let deadline = Date().addingTimeInterval(30)
      if !round.isMultiple(of: 2) {  // (not the first: until a save lands there is no file)
        // The moment a save is under way: its temporary file is there.
        while try Self.leftovers(in: data).isEmpty, Date() < deadline {}
      } else {
        // A moment once this run has saved something of its own, a different one each round.
        while (try? Self.savedCount(in: data)).flatMap({ $0 }) ?? 0 <= lastCount,
          Date() < deadline
        {
          try await Task.sleep(for: .milliseconds(1))
        }
        try await Task.sleep(for: .milliseconds(Int64(round * 7 % 30)))
      }
      kill(pid, SIGKILL)
      process.waitUntilExit()
      #expect(process.terminationReason == .uncaughtSignal)

      if try !Self.leftovers(in: data).isEmpty { killsInsideAWrite += 1 }
      // Named with the process that made them, so that a later write can tell it is gone.
      for leftover in try Self.leftovers(in: data) {
        #expect(leftover.hasPrefix(".big.saved.lua.\(pid)."), "\(leftover)")
      }
      for leftover in try Self.leftovers(in: data) {
        try FileManager.default.removeItem(at: data.appendingPathComponent(leftover))
      }
      let count = try #require(try Self.savedCount(in: data), "nothing saved by round \(round)")
      // Restored at each start, never behind what the last run had on disk.
      #expect(count >= lastCount)
      lastCount = count
    }
    // Kills did land inside writes: a kill after the rename leaves no temporary file. (Most of
    // the kills aimed at a write land in it, 6 of 8 in a typical run; one proves the case ran.)
    #expect(killsInsideAWrite >= 1)
    #expect(lastCount > 0)
  }
}
