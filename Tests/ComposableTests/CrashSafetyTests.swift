import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A process saving state in a loop is killed with SIGKILL at random moments, 50 times; after
/// each kill the file must hold a whole state, the one before or the one being written.
@Suite struct CrashSafetyTests {
  struct State: Decodable {
    var count: Int
    var check: Int
    var items: [String]
  }

  /// The `composable` executable, built beside the tests.
  static var executable: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("composable")
  }

  @Test func killingASaveMidWayNeverLeavesAHalfFile() async throws {
    let executable = Self.executable
    try #require(
      FileManager.default.isExecutableFile(atPath: executable.path),
      "build the composable product first (swift build --build-tests builds it)")
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID())")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    var random = SplitMix(state: 2026)
    var lastCount = 0
    var kills = 0
    for _ in 0..<50 {
      let process = Process()
      process.executableURL = executable
      process.arguments = ["save-loop", "--root", root.path]
      try process.run()
      // Let it write at least once, then kill it at a random moment.
      let file = root.appendingPathComponent("state.json")
      let deadline = Date().addingTimeInterval(10)
      while !FileManager.default.fileExists(atPath: file.path), Date() < deadline {
        try await Task.sleep(for: .milliseconds(2))
      }
      try await Task.sleep(for: .milliseconds(Int64(random.next() % 40) + 5))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      #expect(process.terminationReason == .uncaughtSignal)
      kills += 1
      let data = try Data(contentsOf: file)
      let state = try JSONDecoder().decode(State.self, from: data)
      #expect(state.check == state.count * 7)
      #expect(state.items.count == 2000)
      #expect(state.items.last == "item 1999 of save \(state.count)")
      lastCount = state.count
    }
    #expect(kills == 50)
    #expect(lastCount > 0)
  }

  struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }
}
