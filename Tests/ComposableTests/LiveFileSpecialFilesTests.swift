import Composable
import Foundation
import Testing

/// The live client reads and writes only regular files: a FIFO, a device or a socket is refused
/// without being opened for IO, so nothing waits on one (a FIFO with no writer would block a
/// read forever, and a thread of the shared pool with it). If one of these tests blocked, the
/// refusal would be broken: it never waits to find out.
@Suite struct LiveFileSpecialFilesTests {
  let base: URL
  let root: URL
  let files: FileClient

  init() throws {
    base = FileManager.default.temporaryDirectory.appendingPathComponent("special-\(UUID())")
    root = base.appendingPathComponent("root")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    files = .live(root: root)
  }

  func cleanUp() { try? FileManager.default.removeItem(at: base) }

  func makeFIFO(_ name: String) throws {
    try #require(mkfifo(root.appendingPathComponent(name).path, 0o644) == 0)
  }

  /// A Unix socket bound at `name` in the root (its file stays after the socket is closed).
  func makeSocket(_ name: String) throws {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let path = Array(root.appendingPathComponent(name).path.utf8CString)
    try #require(path.count <= MemoryLayout.size(ofValue: address.sun_path))
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      path.withUnsafeBytes { buffer.copyMemory(from: $0) }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    try #require(bound == 0)
  }

  @Test func aFIFOWithNoWriterIsRefusedNotWaitedOn() async throws {
    defer { cleanUp() }
    try makeFIFO("pipe")
    let refused = "pipe: it is a FIFO (named pipe), not a regular file; only regular files are read "
      + "and written"
    #expect(await errorMessage { _ = try await files.read("pipe") } == refused)
    #expect(await errorMessage { try await files.write("pipe", Array("x".utf8)) } == refused)
    #expect(await errorMessage { try await files.append("pipe", Array("x".utf8)) } == refused)
    #expect(await errorMessage { _ = try await files.list("pipe") } == "pipe: is not a directory")
    #expect(try await files.exists("pipe"))
    // Still a FIFO: a write did not replace it with a file.
    var status = stat()
    #expect(lstat(root.appendingPathComponent("pipe").path, &status) == 0)
    #expect(status.st_mode & S_IFMT == S_IFIFO)
    // Reached through a symlink inside the root, it is refused the same way.
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("to-pipe").path, withDestinationPath: "pipe")
    #expect(await errorMessage { _ = try await files.read("to-pipe") } == "to-" + refused)
    // Removing it is removing a name in the root: allowed, and it does not wait either.
    try await files.remove("pipe")
    #expect(try await files.exists("pipe") == false)
  }

  @Test func aSocketIsRefused() async throws {
    defer { cleanUp() }
    try makeSocket("sock")
    let refused = "sock: it is a socket, not a regular file; only regular files are read and written"
    #expect(await errorMessage { _ = try await files.read("sock") } == refused)
    #expect(await errorMessage { try await files.write("sock", []) } == refused)
    #expect(await errorMessage { try await files.append("sock", []) } == refused)
  }

  /// `/dev/zero` reached through a symlink is outside the root before it is a device: refused
  /// as such, never read (a read of it would never end).
  @Test func aDeviceThroughASymlinkIsOutsideTheRoot() async throws {
    defer { cleanUp() }
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("zero").path, withDestinationPath: "/dev/zero")
    let outside = "zero: it leads outside the root (through a symlink)"
    #expect(await errorMessage { _ = try await files.read("zero") } == outside)
    #expect(await errorMessage { try await files.write("zero", []) } == outside)
    #expect(await errorMessage { try await files.append("zero", []) } == outside)
  }

  /// A root that holds a symlink to `/dev` (an absolute path under which the root is not) cannot
  /// reach a device either, even when the link is a directory on the way.
  @Test func devicesBehindADirectorySymlinkAreOutsideTheRoot() async throws {
    defer { cleanUp() }
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("dev").path, withDestinationPath: "/dev")
    #expect(await errorMessage { _ = try await files.read("dev/null") }
      == "dev/null: it leads outside the root (through a symlink)")
    #expect(await errorMessage { _ = try await files.list("dev") }
      == "dev: it leads outside the root (through a symlink)")
  }

  @Test func aDirectoryWhereAFileIsMeantIsRefusedAndKept() async throws {
    defer { cleanUp() }
    try await files.write("folder/inner.txt", Array("kept".utf8))
    #expect(await errorMessage { _ = try await files.read("folder") } == "folder: is a directory")
    #expect(await errorMessage { try await files.write("folder", []) } == "folder: is a directory")
    #expect(await errorMessage { try await files.append("folder", []) } == "folder: is a directory")
    #expect(await errorMessage { _ = try await files.read(.root) } == ".: is a directory")
    #expect(await errorMessage { try await files.write(.root, []) } == ".: is a directory")
    #expect(await errorMessage { try await files.remove(.root) }
      == ".: the root itself cannot be removed")
    #expect(try await files.read("folder/inner.txt") == Array("kept".utf8))
  }

  @Test func aRootThatIsAFIFOIsRefusedNotWaitedOn() async throws {
    defer { cleanUp() }
    try makeFIFO("not-a-root")
    let client = FileClient.live(root: root.appendingPathComponent("not-a-root"))
    #expect(await errorMessage { _ = try await client.read("x") }
      == "x: the root cannot be opened")
  }
}

/// A read takes at most `readLimit` bytes (16 MiB by default: see `FileClient.defaultReadLimit`),
/// and nothing the client writes is larger, so nothing it writes is refused when read back.
@Suite struct LiveFileReadLimitTests {
  let root: URL

  init() throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent("limit-\(UUID())")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
  }

  func cleanUp() { try? FileManager.default.removeItem(at: root) }

  @Test func theDefaultIs16MiB() {
    #expect(FileClient.defaultReadLimit == 16 << 20)
  }

  /// At the limit a file reads whole; one byte over, it is refused with a message that names the
  /// path, the size and the limit, and quotes none of the contents.
  @Test func oneByteOverTheLimitIsRefusedWithoutQuotingIt() async throws {
    defer { cleanUp() }
    let files = FileClient.live(root: root, readLimit: 1000)
    let atLimit = Array(repeating: UInt8(ascii: "s"), count: 1000)
    try Data(atLimit).write(to: root.appendingPathComponent("at.txt"))
    #expect(try await files.read("at.txt") == atLimit)
    try Data(Array("secret".utf8) + atLimit.dropLast(5)).write(to: root.appendingPathComponent("over.txt"))
    let message = await errorMessage { _ = try await files.read("over.txt") }
    #expect(message == "over.txt: it is 1001 bytes, more than the 1000 a read takes; it was not read")
    #expect(message?.contains("secret") == false)
  }

  /// Writes and appends that would leave a file larger than the limit write nothing.
  @Test func writesStayWithinTheLimit() async throws {
    defer { cleanUp() }
    let files = FileClient.live(root: root, readLimit: 10)
    try await files.write("a.txt", Array("0123456789".utf8))
    #expect(await errorMessage { try await files.write("b.txt", Array("0123456789X".utf8)) }
      == "b.txt: it would be 11 bytes, more than the 10 a file may hold (the read limit, so that "
      + "it can be read back); nothing was written. To fix, write less (for a state: keep less in "
      + "it, or save a part of it with persist's select)")
    #expect(await errorMessage { try await files.append("a.txt", Array("X".utf8)) }
      == "a.txt: it would be 11 bytes, more than the 10 a file may hold (the read limit, so that "
      + "it can be read back); nothing was written. To fix, write less (for a state: keep less in "
      + "it, or save a part of it with persist's select)")
    #expect(try await files.read("a.txt") == Array("0123456789".utf8))
    #expect(try await files.exists("b.txt") == false)
  }
}
