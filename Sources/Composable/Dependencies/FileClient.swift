import Foundation
import IssueReporting

/// Why a file operation failed: `code` for a program to act on, `description` for a person
/// (the path first: `notes/a.txt: no such file`).
public struct FileClientError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The kind of failure, for code that treats a missing file apart from the rest.
  public enum Code: Equatable, Sendable {
    /// The file, or a directory on its way, is not there.
    case notFound
    /// Anything else: refused (outside the root, `..`), not a directory, the disk...
    case failed
  }

  /// The kind of failure: `.notFound` or `.failed`.
  public var code: Code
  public var description: String

  /// An error that says `description`, of kind `code` (`.failed` unless told).
  ///
  /// ```swift
  /// throw FileClientError("notes/today.txt: the disk is full")
  /// ```
  public init(_ description: String, code: Code = .failed) {
    self.description = description
    self.code = code
  }

  /// The error for a missing file at `path`: "<path>: no such file", of kind `.notFound`.
  public static func notFound(_ path: String) -> FileClientError {
    FileClientError("\(path): no such file", code: .notFound)
  }

  /// `notFound(_:)` for a `DataPath`, named by its `description`.
  public static func notFound(_ path: DataPath) -> FileClientError { notFound(path.description) }
}

extension Error {
  /// True for a `FileClientError` that says the file is not there.
  public var isFileNotFound: Bool { (self as? FileClientError)?.code == .notFound }
}

/// File IO for effects, by path relative to a root the host chooses. The live client (confined
/// to its root, with atomic writes) comes with the live effects; tests use `inMemory()` or
/// their own answers.
///
/// Every operation takes a `DataPath`, checked when it was made: no unchecked text reaches a
/// client, the live one or a test's.
public struct FileClient: Sendable {
  /// Reads the whole file at the path; throws a `.notFound` error when it is not there.
  public var read: @Sendable (DataPath) async throws -> [UInt8]
  /// Replaces the contents of the file at the path, creating the file when it is not there (the
  /// live client also makes the directories on its way).
  public var write: @Sendable (DataPath, [UInt8]) async throws -> Void
  /// Adds the bytes at the end of the file at the path, creating the file when it is not there.
  public var append: @Sendable (DataPath, [UInt8]) async throws -> Void
  /// The names in a directory (`DataPath.root` for the root itself), sorted.
  public var list: @Sendable (DataPath) async throws -> [String]
  /// Deletes the file at the path; throws a `.notFound` error when it is not there.
  public var remove: @Sendable (DataPath) async throws -> Void
  /// Whether something is at the path: false when it, or a directory on its way, is missing.
  public var exists: @Sendable (DataPath) async throws -> Bool
  /// Runs the body holding the lock of the file at the path, so that its reads and writes do
  /// not interleave with another process's that hold it too (a save reading the file, then
  /// writing it). The body is told whether it holds it: the live client takes `flock` on the
  /// folder that holds the file, and gives up after a while (another process stuck holding
  /// it), when the body must not write the file itself. A client made without one runs the
  /// body as holding it.
  public var whileLocked:
    @Sendable (DataPath, @Sendable (_ held: Bool) async throws -> Void) async throws -> Void
  /// Where a path leads, as a place that two paths to one file share (symlinks in the folder
  /// followed, the last one too with `followingLast`); nil where it cannot be found, and for a
  /// client that has no such ways (the path is then its own place). The live client's: a
  /// user's symlink must not make the state's file another name a feature may write.
  public var locate: (@Sendable (DataPath, _ followingLast: Bool) -> FileLocation?)?

  /// A client from one closure per operation: a test's fake, or a client of your own.
  ///
  /// ```swift
  /// let readOnly = FileClient(
  ///   read: { _ in Array("hello".utf8) },
  ///   write: { path, _ in throw FileClientError("\(path): read-only") },
  ///   append: { path, _ in throw FileClientError("\(path): read-only") },
  ///   list: { _ in ["hello.txt"] },
  ///   remove: { path in throw FileClientError("\(path): read-only") },
  ///   exists: { _ in true })
  /// ```
  public init(
    read: @escaping @Sendable (DataPath) async throws -> [UInt8],
    write: @escaping @Sendable (DataPath, [UInt8]) async throws -> Void,
    append: @escaping @Sendable (DataPath, [UInt8]) async throws -> Void,
    list: @escaping @Sendable (DataPath) async throws -> [String],
    remove: @escaping @Sendable (DataPath) async throws -> Void,
    exists: @escaping @Sendable (DataPath) async throws -> Bool,
    whileLocked:
      @escaping @Sendable (DataPath, @Sendable (_ held: Bool) async throws -> Void) async throws
      -> Void = { _, body in try await body(true) }
  ) {
    self.read = read
    self.write = write
    self.append = append
    self.list = list
    self.remove = remove
    self.exists = exists
    self.whileLocked = whileLocked
  }

  /// Files kept in memory: a real file system in miniature for tests, starting from `files`.
  public static func inMemory(_ files: [DataPath: String] = [:]) -> FileClient {
    inMemory(bytes: files.mapValues { Array($0.utf8) })
  }

  /// `inMemory` with contents as bytes.
  public static func inMemory(bytes files: [DataPath: [UInt8]]) -> FileClient {
    FileClient(inMemory: InMemoryFiles(files))
  }

  /// An empty `inMemory` client whose files hold at most `limit` bytes (the live client's
  /// `readLimit`), for tests of the limit itself.
  package init(inMemoryLimit limit: Int) {
    self.init(inMemory: InMemoryFiles([:], readLimit: limit))
  }

  private init(inMemory storage: InMemoryFiles) {
    self.init(
      read: { try storage.read($0) },
      write: { try storage.write($0, $1, appending: false) },
      append: { try storage.write($0, $1, appending: true) },
      list: { try storage.list($0) },
      remove: { try storage.remove($0) },
      exists: { try storage.exists($0) })
  }
}

extension FileClient {
  /// Throws the live client's error for a write or an append of a file named as a write's
  /// temporary file is (`.NAME.PID.UUID.tmp`: removed once its process is gone), before any
  /// folder is made for it. (The live client checks the name its path leads to as well.)
  public static func refuseTemporaryName(_ path: DataPath) throws {
    if let name = path.name, LiveFiles.isTemporaryName(name) {
      throw LiveFiles.temporaryNameRefused(path)
    }
  }

  /// The start of the names a host keeps for its own files at the top of a feature's data
  /// directory (`.composable-feature`, which says whose the directory is).
  public static let hostNamePrefix = ".composable-"

  /// Throws for a path at the top of the root whose name begins with `hostNamePrefix`: such a
  /// file is the host's, and a feature that saved its state there would replace what the host
  /// keeps (a data directory given to another feature). Below the top, the name is the
  /// feature's own.
  public static func refuseHostName(_ path: DataPath) throws {
    guard path.components.count == 1, let name = path.name, name.hasBytePrefix(hostNamePrefix)
    else { return }
    throw FileClientError("\(path): \(hostNamesAreTheHosts)")
  }

  /// Why a feature's file cannot have a host's name: said by `refuseHostName`, and by the live
  /// client for a path that reaches one another way (a symlink in the folder).
  public static let hostNamesAreTheHosts =
    "names beginning \(hostNamePrefix) at the top of the data directory are kept for composable's "
    + "own files. To fix, give the file another name"
}

extension FileClient: DependencyKey {
  /// A client whose every operation fails: a live client needs a root, so the app sets `files` to
  /// `FileClient.live(root:)` itself.
  public static let liveValue = FileClient.failing(
    "no live file client is configured in this build")

  /// Why every operation of a test's file client fails when the test gave none. That client
  /// reports the issue itself, naming the fix: what fails for it (a save) need not again.
  public static let notProvidedInTest = "files are not provided in this test"

  /// A client whose every operation reports an issue naming it and fails, until the test sets
  /// `files` (to `.inMemory(_:)`, say).
  public static let testValue = FileClient.failing(notProvidedInTest) {
    operation, path in
    reportIssue(
      """
      A test used "files" without providing it: \(operation) \(path)

      To fix, give the store a file client, for instance with \
      "dependencies: { $0.files = .inMemory([\\"notes.txt\\": \\"...\\"]) }".
      """)
  }

  /// A client whose every operation throws "<reason>: <operation> <path>", after calling `report`
  /// with the operation's name and the path.
  public static func failing(
    _ reason: String, report: @escaping @Sendable (String, String) -> Void = { _, _ in }
  ) -> FileClient {
    @Sendable func fail(_ operation: String, _ path: DataPath) -> FileClientError {
      report(operation, path.description)
      return FileClientError("\(reason): \(operation) \(path)")
    }
    return FileClient(
      read: { throw fail("read", $0) },
      write: { path, _ in throw fail("write", path) },
      append: { path, _ in throw fail("append", path) },
      list: { throw fail("list", $0) },
      remove: { throw fail("remove", $0) },
      exists: { throw fail("exists", $0) })
  }
}

extension DependencyValues {
  /// The file client effects use: one that fails, unless the app or the test sets its own.
  public var files: FileClient {
    get { self[FileClient.self] }
    set { self[FileClient.self] = newValue }
  }
}

/// A place in a file client's tree, as `FileClient.locate` finds it: the folder a path ends in
/// and the name there.
public struct FileLocation: Hashable, Sendable {
  /// The file system the folder is on (`st_dev`).
  public let device: UInt64
  /// The folder, by its inode number (`st_ino`).
  public let folder: UInt64
  /// The name in the folder the path ends at.
  public let name: String

  /// A place: for a client of your own whose `locate` finds one.
  ///
  /// ```swift
  /// var status = stat()
  /// _ = stat("/data/notes", &status)
  /// let place = FileLocation(
  ///   device: UInt64(status.st_dev), folder: UInt64(status.st_ino), name: "today.txt")
  /// ```
  public init(device: UInt64, folder: UInt64, name: String) {
    self.device = device
    self.folder = folder
    self.name = name
  }
}
