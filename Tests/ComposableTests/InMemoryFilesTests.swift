import Composable
import Foundation
import SeededRandom
import Testing

/// `FileClient.inMemory` answers as the live client does: a differential test of random
/// operations over a few paths (files under files, folders written over, hidden names,
/// removals of folders), each answer of the one in memory against the live one's on a real
/// folder. It kept no folders (a file under a file was written, a folder was not listed, nor
/// said to exist): a test in memory passed where the app on disk failed (an attacker's finding).
@Suite struct InMemoryFilesTests {
  static let paths: [DataPath] = ["a", "a/b", "a/b/c", "b", ".", "a/.h", "c/d", "c"]

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
}
