import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// Persistence on real files: what is not a state is moved aside on disk, what cannot be read
/// is left where it is, and the feature starts from its initial state either way.
@Suite struct PersistenceOnDiskTests {
  static let source = """
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "todos.json" },
      initial_state = function() return { todos = {} } end,
      reduce = function() end,
    }
    """

  private func withRoot(_ body: (URL) async throws -> Void) async throws {
    let root = try makeTemporaryDirectory("saved")
    defer { try? FileManager.default.removeItem(at: root) }
    try await body(root)
  }

  @Test(arguments: ["null", "123", #""text""#, "true"])
  func jsonThatIsNoStateIsMovedAsideOnDisk(contents: String) async throws {
    try await withRoot { root in
      let file = root.appendingPathComponent("todos.json")
      try contents.write(to: file, atomically: true, encoding: .utf8)
      let feature = try LuaFeature(source: Self.source, file: "todos.lua")
      let reports = Locked<[String]>([])
      let loaded = try await feature.restorePersisted(files: .live(root: root)) { message in
        reports.withLock { $0.append(message) }
      }
      guard case let .corrupt(_, movedTo) = loaded else {
        Issue.record("expected the file refused, got \(loaded)")
        return
      }
      #expect(!FileManager.default.fileExists(atPath: file.path))
      let aside = root.appendingPathComponent(movedTo)
      #expect(try String(contentsOf: aside, encoding: .utf8) == contents)
      #expect(reports.withLock { $0 }.first?.hasPrefix(
        "The saved state at todos.json was not loaded, because it is not a saved state: "
          + "expected a table, got") == true)
      #expect(try feature.state() == ["todos": [:]])
    }
  }

  @Test func aFileThatCannotBeReadIsLeftWhereItIs() async throws {
    try await withRoot { root in
      let file = root.appendingPathComponent("todos.json")
      try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
      try "keep me".write(
        to: file.appendingPathComponent("inside.txt"), atomically: true, encoding: .utf8)
      let feature = try LuaFeature(source: Self.source, file: "todos.lua")
      let reports = Locked<[String]>([])
      _ = try await feature.restorePersisted(files: .live(root: root)) { message in
        reports.withLock { $0.append(message) }
      }
      #expect(FileManager.default.fileExists(atPath: file.appendingPathComponent("inside.txt").path))
      #expect(reports.withLock { $0 } == [
        """
        The saved state at todos.json was not loaded, because it cannot be read: todos.json: is \
        a directory. It was left where it is; the feature starts from its initial state.
        """
      ])
    }
  }
}
