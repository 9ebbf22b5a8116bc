import Foundation
import TestSupport
import Testing

/// `composable run --watch`: a reload whose new code has `migrate(state)` prints what it
/// changed, as an action's changes are printed, and the next action starts from there.
@Suite struct RunWatchMigrationTests {
  static let before = """
    return {
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action) if action.type == "tick" then state.n = state.n + 1 end end,
    }
    """
  static let after = """
    return {
      initial_state = function() return { count = 0 } end,
      migrate = function(state)
        if state.n ~= nil then state.count = state.n * 10 state.n = nil end
      end,
      reduce = function(state, action)
        if action.type == "tick" then state.count = state.count + 1 end
      end,
    }
    """

  @Test func aReloadPrintsWhatItsMigrateChanged() throws {
    let directory = try makeTemporaryDirectory("watch-migrate")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tick.lua")
    try Self.before.write(to: feature, atomically: false, encoding: .utf8)
    let process = Process()
    process.executableURL = try builtProduct("composable")
    process.arguments = ["run", feature.path, "--watch", "--wait", "0", "--data", directory.path]
    let stdin = Pipe(), stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    let output = Locked("")
    stdout.fileHandleForReading.readabilityHandler = { handle in
      let data = handle.availableData
      output.withLock { $0 += String(decoding: data, as: UTF8.self) }
    }
    func waitFor(_ text: String) -> Bool {
      for _ in 0..<500 {
        if output.withLock({ $0.contains(text) }) { return true }
        Thread.sleep(forTimeInterval: 0.01)
      }
      return false
    }
    stdin.fileHandleForWriting.write(Data("tick\n".utf8))
    #expect(waitFor("+ n = 1"))
    try Self.after.write(to: feature, atomically: true, encoding: .utf8)
    #expect(waitFor("migrate(state):"), "\(output.withLock { $0 })")
    // Once more with the same migrate, which now finds nothing to change: said so, as an
    // action that changed nothing is.
    try (Self.after + "\n").write(to: feature, atomically: true, encoding: .utf8)
    #expect(waitFor("  (No state changes)"), "\(output.withLock { $0 })")
    stdin.fileHandleForWriting.write(Data("tick\n".utf8))
    #expect(waitFor("+ count = 11"), "\(output.withLock { $0 })")
    try stdin.fileHandleForWriting.close()
    process.waitUntilExit()
    stdout.fileHandleForReading.readabilityHandler = nil
    #expect(process.terminationStatus == 0)
    let printed = output.withLock { $0 }
    let migrations = printed.components(separatedBy: "reloaded tick.lua in ").dropFirst()
      .map { $0.drop { $0 != "\n" }.dropFirst() }
    #expect(migrations.count == 2, "\(printed)")
    #expect(
      migrations.first?.hasPrefix("migrate(state):\n  + count = 10\n  − n = 1\n") == true,
      "\(printed)")
    #expect(
      migrations.last?.hasPrefix("migrate(state):\n  (No state changes)\n") == true, "\(printed)")
  }
}
