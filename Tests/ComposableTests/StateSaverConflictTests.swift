@testable import Composable
import Foundation
import Synchronization
import Testing

/// A save never replaces a file another writer changed since the state was loaded from it: the
/// state goes beside it (a new user's two runs on one data directory lost the first one's
/// changes to the last one to exit, both ending 0).
@Suite struct StateSaverConflictTests {
  let path = try! DataPath(validating: Array("state.txt".utf8))

  func text(_ files: FileClient, _ name: String) async -> String? {
    guard let path = try? DataPath(validating: Array(name.utf8)),
      let bytes = try? await files.read(path)
    else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  func names(_ files: FileClient) async throws -> [String] {
    try await files.list(DataPath.root).sorted()
  }

  @Test(arguments: ["changed", "removed", "made"])
  func aFileAnotherWriterChangedIsLeftAndTheStateGoesBeside(how: String) async throws {
    let files = FileClient.inMemory(how == "made" ? [:] : [path: "mine 0"])
    let saver = StateSaver(path: path) { Array("mine 1".utf8) }
    saver.knowsFile(how == "made" ? nil : Array("mine 0".utf8))
    switch how {
    case "changed": try await files.write(path, Array("theirs".utf8))
    case "removed": try await files.remove(path)
    default: try await files.write(path, Array("theirs".utf8))
    }
    saver.changed()
    // A file where none was known was not "changed since the state was loaded from it": none
    // was loaded (a reload's persist named a file already there, say).
    let conflict = await #expect(throws: StateSaverConflict.self) {
      try await saver.savePending(files: files)
    }
    #expect(conflict?.appeared == (how == "made"))
    #expect(
      conflict?.description.hasPrefix(
        how == "made"
          ? "state.txt holds a file this run did not write (a second run on the same data "
            + "directory, an edit, or a file there before a reload's persist named it; none was "
            + "there when the saves began), so it is left as it is"
          : "state.txt was changed by another writer") == true, "\(String(describing: conflict))")
    #expect(await text(files, "state.txt") == (how == "removed" ? nil : "theirs"))
    let aside = try #require(try await names(files).first { $0.hasPrefix("state.txt.conflict-") })
    #expect(await text(files, aside) == "mine 1")
    #expect(!saver.isPending, "written, beside the file")
    // Later saves go there too, and say nothing more.
    saver.changed()
    try await saver.savePending(files: files)
    #expect(await text(files, "state.txt") == (how == "removed" ? nil : "theirs"))
    #expect(try await names(files).filter { $0.hasPrefix("state.txt.conflict-") }.count == 1)
  }

  /// The saver's own writes are what it knows next: save after save, no conflict.
  /// No name beside the file is looked for either (a test's `files` function saw an `exists`
  /// of `state.txt.conflict-...` at every save, with no conflict at all).
  @Test func itsOwnWritesAreNoConflict() async throws {
    var files = FileClient.inMemory([path: "0"])
    let looked = SaveNumber()
    let exists = files.exists
    files.exists = { name in
      _ = looked.next()
      return try await exists(name)
    }
    let count = SaveNumber()
    let saver = StateSaver(path: path) { Array("\(count.next())".utf8) }
    saver.knowsFile(Array("0".utf8))
    for _ in 1...5 {
      saver.changed()
      try await saver.savePending(files: files)
    }
    #expect(await text(files, "state.txt") == "5")
    #expect(try await names(files) == ["state.txt"])
    #expect(looked.next() == 1, "names were looked for beside the file")
  }

  /// A conflict file already there (two conflicts in one second) is not written over.
  @Test func aConflictFileThereIsKept() async throws {
    let files = FileClient.inMemory([path: "0"])
    let saver = StateSaver(path: path) { Array("mine".utf8) }
    saver.knowsFile(Array("0".utf8))
    try await files.write(path, Array("theirs".utf8))
    let stamp = Int(Date().timeIntervalSince1970)
    for second in [stamp, stamp + 1] {  // the second may turn while the test runs
      try await files.write(
        try DataPath(validating: Array("state.txt.conflict-\(second)".utf8)), Array("older".utf8))
    }
    saver.changed()
    await #expect(throws: StateSaverConflict.self) { try await saver.savePending(files: files) }
    let all = try await names(files)
    #expect(all.filter { $0.hasPrefix("state.txt.conflict-") }.count == 3, "\(all)")
    for name in all where name.hasPrefix("state.txt.conflict-") && !name.contains("-2") {
      if name.hasSuffix("\(stamp)") || name.hasSuffix("\(stamp + 1)") {
        #expect(await text(files, name) == "older")
      }
    }
  }

  /// A file that cannot be read now (too large, a directory) is not the one loaded: the state
  /// goes beside it, where the read's error failed the save and lost it.
  @Test func aFileThatCannotBeReadNowIsLeftToo() async throws {
    var files = FileClient.inMemory([path: "0"])
    let read = files.read
    let path = self.path
    files.read = { wanted in
      if wanted == path { throw FileClientError("\(wanted): it is too large to read") }
      return try await read(wanted)
    }
    let saver = StateSaver(path: path) { Array("mine".utf8) }
    saver.knowsFile(Array("0".utf8))
    saver.changed()
    await #expect(throws: StateSaverConflict.self) { try await saver.savePending(files: files) }
    let aside = try #require(try await names(files).first { $0.hasPrefix("state.txt.conflict-") })
    #expect(await text(files, aside) == "mine")
  }

  /// Two savers of one file in one folder saving at once, each write slow (the fsync): the
  /// second waits for the first's lock, then finds its file, and goes beside it. Without the
  /// lock both read the old file, both wrote, and the last rename won.
  @Test func twoSaversAtOnceTakeTurns() async throws {
    let root = try makeTemporaryRoot()
    defer { try? FileManager.default.removeItem(at: root) }
    let live = FileClient.live(root: root)
    try await live.write(path, Array("0".utf8))
    var slow = live
    slow.write = { path, bytes in
      try await Task.sleep(for: .milliseconds(200))
      try await live.write(path, bytes)
    }
    let savers = ["first", "second"].map { name in
      let saver = StateSaver(path: path) { Array(name.utf8) }
      saver.knowsFile(Array("0".utf8))
      saver.changed()
      return saver
    }
    let conflicts = try await withThrowingTaskGroup(of: Bool.self) { group in
      for saver in savers {
        let files = slow
        group.addTask {
          do {
            try await saver.savePending(files: files)
            return false
          } catch is StateSaverConflict {
            return true
          }
        }
      }
      return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(conflicts == 1)
    let all = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
    let contents = try all.map { try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8) }
    #expect(Set(contents) == ["first", "second"], "\(all): \(contents)")
  }

  /// Another process holding the folder's lock past the wait (stuck between its read and its
  /// rename, say): the save goes beside the file, never into it, where the stuck writer's
  /// rename would land over it (an attacker's finding: a signal's save wrote unlocked after
  /// 2 s, said "saved", and the stuck run's rename replaced it; the end of input's save gave up
  /// and lost the state).
  @Test func aLockHeldElsewhereSendsTheSaveBeside() async throws {
    let root = try makeTemporaryRoot()
    defer { try? FileManager.default.removeItem(at: root) }
    let files = FileClient.live(root: root, lockWait: .milliseconds(200))
    try await files.write(path, Array("0".utf8))
    let folder = open(root.path, O_RDONLY | O_DIRECTORY)
    #expect(flock(folder, LOCK_EX) == 0)  // another open of the folder: another holder
    defer { close(folder) }
    let saver = StateSaver(path: path) { Array("mine".utf8) }
    saver.knowsFile(Array("0".utf8))
    saver.changed()
    await #expect(throws: StateSaverConflict.self) { try await saver.savePending(files: files) }
    #expect(try String(contentsOf: root.appendingPathComponent("state.txt"), encoding: .utf8) == "0")
    let all = try FileManager.default.contentsOfDirectory(atPath: root.path)
    let aside = try #require(all.first { $0.hasPrefix("state.txt.conflict-") }, "\(all)")
    #expect(try String(contentsOf: root.appendingPathComponent(aside), encoding: .utf8) == "mine")
    // At a signal: the same, after its two seconds.
    let second = StateSaver(path: path) { Array("also mine".utf8) }
    second.knowsFile(Array("0".utf8))
    second.changed()
    #expect(throws: StateSaverConflict.self) {
      try second.savePending { path, bytes in
        try FileClient.writeNow(path, bytes, under: root)
      } read: { path in
        do { return try FileClient.readNow(path, under: root) } catch where error.isFileNotFound {
          return nil
        }
      } locked: { path, body in
        try FileClient.whileLockedNow(path, under: root, body)
      }
    }
    #expect(try String(contentsOf: root.appendingPathComponent("state.txt"), encoding: .utf8) == "0")
  }

  func makeTemporaryRoot() throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "saver-conflict-\(UUID())")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    return root
  }

  /// Not told what the file held (a saver that did not load it), a save writes as before.
  @Test func aSaverNotToldWritesOver() async throws {
    let files = FileClient.inMemory([path: "theirs"])
    let saver = StateSaver(path: path) { Array("mine".utf8) }
    saver.changed()
    try await saver.savePending(files: files)
    #expect(await text(files, "state.txt") == "mine")
  }

  /// A signal's save (no tasks) checks the same way.
  @Test func aSignalsSaveLeavesAChangedFileToo() throws {
    var disk: [DataPath: [UInt8]] = [path: Array("theirs".utf8)]
    let saver = StateSaver(path: path) { Array("mine".utf8) }
    saver.knowsFile(Array("mine 0".utf8))
    saver.changed()
    #expect(throws: StateSaverConflict.self) {
      try saver.savePending { path, bytes in disk[path] = bytes } read: { disk[$0] }
    }
    #expect(disk[path] == Array("theirs".utf8))
    #expect(disk.count == 2)
    #expect(disk.values.contains(Array("mine".utf8)))
  }
}

/// 1, 2, 3, ... across tasks.
private final class SaveNumber: Sendable {
  private let value = Mutex(0)
  func next() -> Int { value.withLock { $0 += 1; return $0 } }
}
