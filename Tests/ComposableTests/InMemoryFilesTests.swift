import Composable
import Foundation
import SeededRandom
import Testing

/// `FileClient.inMemory` answers as the live client does (as bytes compare names; a write past
/// the read limit refused): a differential test of random
/// operations over a few paths (files under files, folders written over, hidden names,
/// removals of folders), each answer of the one in memory against the live one's on a real
/// folder. It kept no folders (a file under a file was written, a folder was not listed, nor
/// said to exist): a test in memory passed where the app on disk failed (an attacker's finding).
@Suite struct InMemoryFilesTests {
  /// Among them names a `String` takes for one and a disk for two (é precomposed and not; K
  /// and the Kelvin sign), and a mark after a `/`.
  static let paths: [DataPath] = [
    "a", "a/b", "a/b/c", "b", ".", "a/.h", "c/d", "c", "caf\u{E9}", "cafe\u{301}", "K",
    "\u{212A}", "a/\u{301}x",
  ]

  /// What an operation answered: its value, or its error's words.
  static func outcome(_ body: () async throws -> String) async -> String {
    do { return try await body() } catch { return "error: \(error)" }
  }

  static func run(_ operation: Int, _ path: DataPath, _ byte: UInt8, on files: FileClient) async
    -> String
  {
    await outcome {
      switch operation {
      case 0:
        try await files.write(path, [byte])
        return "written"
      case 1:
        try await files.append(path, [byte])
        return "appended"
      case 2: return "read \(try await files.read(path))"
      case 3: return "list \(try await files.list(path))"
      case 4:
        try await files.remove(path)
        return "removed"
      default: return "exists \(try await files.exists(path))"
      }
    }
  }

  @Test func randomOperationsAnswerAsOnDisk() async throws {
    var generator = SplitMix64(seed: 31)
    for round in 0..<150 {
      let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("in-memory-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: root) }
      let live = FileClient.live(root: root)
      let memory = FileClient.inMemory()
      var log: [String] = []
      for _ in 0..<14 {
        let operation = Int(generator.next() % 6)
        let path = Self.paths[Int(generator.next() % UInt64(Self.paths.count))]
        let byte = UInt8(generator.next() % 200)
        let onDisk = await Self.run(operation, path, byte, on: live)
        let inMemory = await Self.run(operation, path, byte, on: memory)
        log.append("\(operation) \(path): \(onDisk)")
        guard onDisk == inMemory else {
          let steps = log.joined(separator: "\n")
          Issue.record("round \(round): in memory \(inMemory), on disk \(onDisk), after\n\(steps)")
          return
        }
      }
    }
  }

  /// A write or an append past the read limit: refused in memory as on disk, in its words.
  @Test func aWritePastTheLimitIsRefusedAsOnDisk() async throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("in-memory-limit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let limit = 64
    let clients = [
      FileClient.live(root: root, readLimit: limit), FileClient(inMemoryLimit: limit),
    ]
    var answers: [[String]] = []
    for files in clients {
      answers.append([
        await Self.outcome {
          try await files.write("big", [UInt8](repeating: 1, count: limit + 1))
          return "written"
        },
        await Self.outcome {
          try await files.write("half", [UInt8](repeating: 1, count: 40))
          try await files.append("half", [UInt8](repeating: 1, count: 30))
          return "appended"
        },
        await Self.outcome { "read \(try await files.read("half").count)" },
      ])
    }
    #expect(answers[0] == answers[1])
    #expect(answers[0][0].contains("it would be 65 bytes, more than the 64 a file may hold"))
    #expect(answers[0][1].contains("it would be 70 bytes"))
  }
}
