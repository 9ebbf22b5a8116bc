import Composable
import Foundation
import Testing

@Suite struct LiveFileClientTests {
  let base: URL
  let root: URL
  let files: FileClient

  init() throws {
    base = FileManager.default.temporaryDirectory.appendingPathComponent("files-\(UUID().uuidString)")
    root = base.appendingPathComponent("root")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    files = .live(root: root)
  }

  func cleanUp() { try? FileManager.default.removeItem(at: base) }


  @Test func writeThenReadRoundTrips() async throws {
    defer { cleanUp() }
    try await files.write("notes.txt", Array("buy milk".utf8))
    #expect(try await files.read("notes.txt") == Array("buy milk".utf8))
    try await files.write("nested/deeper/list.txt", Array("x".utf8))
    #expect(try await files.read("nested/deeper/list.txt") == Array("x".utf8))
    try await files.write("empty.txt", [])
    #expect(try await files.read("empty.txt") == [])
  }

  @Test func aWriteReplacesAtomicallyAndLeavesNoTemporaryFile() async throws {
    defer { cleanUp() }
    try await files.write("state.json", Array(#"{"count":1}"#.utf8))
    try await files.write("state.json", Array(#"{"count":2}"#.utf8))
    #expect(try await files.read("state.json") == Array(#"{"count":2}"#.utf8))
    let everything = try FileManager.default.contentsOfDirectory(atPath: root.path)
    #expect(everything == ["state.json"])
  }

  @Test func appendListAndRemove() async throws {
    defer { cleanUp() }
    try await files.append("log.txt", Array("a".utf8))
    try await files.append("log.txt", Array("b".utf8))
    #expect(try await files.read("log.txt") == Array("ab".utf8))
    try await files.write("b.txt", [])
    #expect(try await files.list(".") == ["b.txt", "log.txt"])
    try await files.remove("b.txt")
    #expect(try await files.list(.root) == ["log.txt"])
    #expect(await errorMessage { _ = try await files.read("b.txt") } == "b.txt: no such file")
    #expect(await errorMessage { try await files.remove("b.txt") } == "b.txt: no such file")
  }

  /// `..` and absolute paths cannot even be made into a `DataPath`, so no client sees them.
  @Test func escapesAreRefusedBeforeAnyClient() {
    #expect(throws: DataPath.Invalid.self) { try DataPath(validating: "../secret.txt") }
    #expect(throws: DataPath.Invalid.self) { try DataPath(validating: "a/../../secret.txt") }
    #expect(throws: DataPath.Invalid.self) { try DataPath(validating: "/etc/hostname") }
  }

  @Test func symlinksLeadingOutsideAreRefused() async throws {
    defer { cleanUp() }
    let outside = base.appendingPathComponent("outside")
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    try "secret".write(to: outside.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(
      at: root.appendingPathComponent("door"), withDestinationURL: outside)
    try FileManager.default.createSymbolicLink(
      at: root.appendingPathComponent("file-link.txt"),
      withDestinationURL: outside.appendingPathComponent("secret.txt"))
    let escaped = "it leads outside the root (through a symlink)"
    #expect(await errorMessage { _ = try await files.read("door/secret.txt") } == "door/secret.txt: \(escaped)")
    #expect(await errorMessage { try await files.write("door/new.txt", []) } == "door/new.txt: \(escaped)")
    #expect(await errorMessage { _ = try await files.read("file-link.txt") } == "file-link.txt: \(escaped)")
    #expect(await errorMessage { try await files.write("file-link.txt", []) } == "file-link.txt: \(escaped)")
    #expect(!FileManager.default.fileExists(atPath: outside.appendingPathComponent("new.txt").path))
    #expect(try String(contentsOf: outside.appendingPathComponent("secret.txt"), encoding: .utf8) == "secret")
  }

  /// A hard link in the root to a file outside it: appending would write that file there, so
  /// it is refused; a whole write replaces the name in the root and leaves the outside file be.
  /// The root moved away and a symlink to elsewhere put in its place while the client is in
  /// use: nothing is read or written through it. A root that was a symlink from the start is
  /// where it led then.
  @Test func aRootReplacedByASymlinkIsNotFollowed() async throws {
    defer { cleanUp() }
    try await files.write("state.lua", Array("1".utf8))
    let outside = base.appendingPathComponent("outside")
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    #expect(rename(root.path, base.appendingPathComponent("old").path) == 0)
    try FileManager.default.createSymbolicLink(at: root, withDestinationURL: outside)
    await #expect {
      try await files.write("state.lua", Array("2".utf8))
    } throws: { error in
      "\(error)".contains("state.lua: the folder the files are kept in, \(root.path), is now reached through a symlink")
    }
    await #expect(throws: FileClientError.self) { try await files.read("state.lua") }
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == [])
    // Made over a symlink, the client keeps to where it led.
    let linked = FileClient.live(root: root)
    try await linked.write("state.lua", Array("3".utf8))
    #expect(
      try String(contentsOf: outside.appendingPathComponent("state.lua"), encoding: .utf8) == "3")
  }

  /// A folder above the root moved away and a symlink to elsewhere put in its place: the same.
  @Test func aRootWhoseParentWasReplacedByASymlinkIsNotFollowed() async throws {
    defer { cleanUp() }
    let parent = base.appendingPathComponent("parent")
    let deep = parent.appendingPathComponent("data")
    try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
    let client = FileClient.live(root: deep)
    try await client.write("state.lua", Array("1".utf8))
    let elsewhere = base.appendingPathComponent("elsewhere/data")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    #expect(rename(parent.path, base.appendingPathComponent("moved").path) == 0)
    try FileManager.default.createSymbolicLink(
      at: parent, withDestinationURL: base.appendingPathComponent("elsewhere"))
    await #expect(throws: FileClientError.self) {
      try await client.write("state.lua", Array("2".utf8))
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == [])
  }

  /// A root given through `link/..` before it exists is where the kernel puts it when it is
  /// made (the link's target's parent), not where the path reads without the link.
  @Test func aRootThroughALinkAndDotDotIsWhereTheKernelMakesIt() async throws {
    defer { cleanUp() }
    let target = base.appendingPathComponent("a/b")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    let link = base.appendingPathComponent("link")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    let given = URL(fileURLWithPath: link.path + "/../data")
    let client = FileClient.live(root: given)
    #expect(mkdir(given.path, 0o755) == 0)  // made as the command makes it, by its path
    try await client.write("state.lua", Array("1".utf8))
    let made = base.appendingPathComponent("a/data/state.lua")
    #expect(try String(contentsOf: made, encoding: .utf8) == "1")
  }

  @Test func aFileWithAHardLinkOutsideIsNotAppendedTo() async throws {
    defer { cleanUp() }
    let outside = base.appendingPathComponent("outside.txt")
    try "secret".write(to: outside, atomically: true, encoding: .utf8)
    try FileManager.default.linkItem(at: outside, to: root.appendingPathComponent("linked.txt"))
    #expect(
      await errorMessage { try await files.append("linked.txt", Array("x".utf8)) }
        == "linked.txt: it has 2 names (hard links), which may lead outside the root; it was not "
        + "written. To fix, give it one name (copy it, remove the others)")
    try await files.write("linked.txt", Array("new".utf8))
    #expect(try String(contentsOf: outside, encoding: .utf8) == "secret")
    #expect(try await files.read("linked.txt") == Array("new".utf8))
    try await files.append("linked.txt", Array("!".utf8))  // one name now
    #expect(try await files.read("linked.txt") == Array("new!".utf8))
  }

  @Test func aSymlinkOutsideIsRefusedEvenWithMissingDirectoriesAfterIt() async throws {
    defer { cleanUp() }
    let outside = base.appendingPathComponent("outside")
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      at: root.appendingPathComponent("door"), withDestinationURL: outside)
    let escaped = "it leads outside the root (through a symlink)"
    // `sub` does not exist: a check that resolves what exists of the path gave up there, and
    // creating the directories followed the link.
    for path: DataPath in ["door/sub/new.txt", "door/sub/deeper/new.txt"] {
      let bytes = Array("x".utf8)
      #expect(await errorMessage { try await files.write(path, bytes) } == "\(path): \(escaped)")
      #expect(await errorMessage { try await files.append(path, bytes) } == "\(path): \(escaped)")
    }
    #expect(await errorMessage { _ = try await files.list("door") } == "door: \(escaped)")
    #expect(await errorMessage { try await files.remove("door/x") } == "door/x: \(escaped)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == [])
    // Removing the link itself is fine: it is inside the root.
    try await files.remove("door")
    #expect(FileManager.default.fileExists(atPath: outside.path))
  }

  @Test func absoluteAndChainedSymlinksInsideTheRootAreFollowedAndLoopsRefused() async throws {
    defer { cleanUp() }
    try await files.write("real/data.txt", Array("ok".utf8))
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("absolute").path,
      withDestinationPath: root.appendingPathComponent("real").path)
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("real/up").path, withDestinationPath: "../real")
    #expect(try await files.read("absolute/data.txt") == Array("ok".utf8))
    #expect(try await files.read("real/up/up/data.txt") == Array("ok".utf8))
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("loop").path, withDestinationPath: "loop")
    #expect(await errorMessage { _ = try await files.read("loop/x") }
      == "loop/x: too many symlinks on the way")
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("real/climb").path, withDestinationPath: "../../outside")
    #expect(await errorMessage { _ = try await files.read("real/climb/x") }
      == "real/climb/x: it leads outside the root (through a symlink)")
  }

  @Test func aSymlinkInsideTheRootIsFine() async throws {
    defer { cleanUp() }
    try await files.write("real/data.txt", Array("ok".utf8))
    try FileManager.default.createSymbolicLink(
      at: root.appendingPathComponent("alias"), withDestinationURL: root.appendingPathComponent("real"))
    #expect(try await files.read("alias/data.txt") == Array("ok".utf8))
  }

  /// A missing file is told by its code, not its text: the file itself, a directory on its
  /// way, a removal. Other failures are not "not found".
  @Test func aMissingFileIsTypedNotFound() async throws {
    defer { cleanUp() }
    func code(_ body: () async throws -> Void) async -> FileClientError.Code? {
      do { try await body() } catch { return (error as? FileClientError)?.code }
      return nil
    }
    #expect(await code { _ = try await files.read("missing.txt") } == .notFound)
    #expect(await code { _ = try await files.read("no/such/dir/x.txt") } == .notFound)
    #expect(await code { try await files.remove("missing.txt") } == .notFound)
    #expect(await code { _ = try await files.list("missing") } == .notFound)
    try await files.write("folder/x.txt", [])
    #expect(await code { _ = try await files.read("folder") } == .failed)
    #expect(await code { _ = try await FileClient.inMemory().read("x") } == .notFound)
  }

  @Test func readingADirectoryIsAClearError() async throws {
    defer { cleanUp() }
    try await files.write("folder/x.txt", [])
    #expect(await errorMessage { _ = try await files.read("folder") } == "folder: is a directory")
  }
}

@Suite struct LiveFileExistsTests {
  @Test func existsTellsWithoutReading() async throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("exists-\(UUID())")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let files = FileClient.live(root: root)
    #expect(try await files.exists("a.txt") == false)
    try await files.write("a.txt", [])
    #expect(try await files.exists("a.txt") == true)
    #expect(throws: DataPath.Invalid.self) { try DataPath(validating: "../a.txt") }
  }
}
