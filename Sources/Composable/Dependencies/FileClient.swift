import Foundation
import IssueReporting

/// Why a file operation failed: `code` for a program to act on, `description` for a person
/// (the path first: `notes/a.txt: no such file`).
public struct FileClientError: Error, Equatable, Sendable, CustomStringConvertible {
  public enum Code: Equatable, Sendable {
    /// The file, or a directory on its way, is not there.
    case notFound
    /// Anything else: refused (outside the root, `..`), not a directory, the disk...
    case failed
  }

  public var code: Code
  public var description: String

  public init(_ description: String, code: Code = .failed) {
    self.description = description
    self.code = code
  }

  public static func notFound(_ path: String) -> FileClientError {
    FileClientError("\(path): no such file", code: .notFound)
  }

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
  public var read: @Sendable (DataPath) async throws -> [UInt8]
  public var write: @Sendable (DataPath, [UInt8]) async throws -> Void
  public var append: @Sendable (DataPath, [UInt8]) async throws -> Void
  /// The names in a directory (`DataPath.root` for the root itself), sorted.
  public var list: @Sendable (DataPath) async throws -> [String]
  public var remove: @Sendable (DataPath) async throws -> Void
  public var exists: @Sendable (DataPath) async throws -> Bool

  public init(
    read: @escaping @Sendable (DataPath) async throws -> [UInt8],
    write: @escaping @Sendable (DataPath, [UInt8]) async throws -> Void,
    append: @escaping @Sendable (DataPath, [UInt8]) async throws -> Void,
    list: @escaping @Sendable (DataPath) async throws -> [String],
    remove: @escaping @Sendable (DataPath) async throws -> Void,
    exists: @escaping @Sendable (DataPath) async throws -> Bool
  ) {
    self.read = read
    self.write = write
    self.append = append
    self.list = list
    self.remove = remove
    self.exists = exists
  }

  /// Files kept in memory: a real file system in miniature for tests, starting from `files`.
  public static func inMemory(_ files: [DataPath: String] = [:]) -> FileClient {
    inMemory(bytes: files.mapValues { Array($0.utf8) })
  }

  /// `inMemory` with contents as bytes.
  public static func inMemory(bytes files: [DataPath: [UInt8]]) -> FileClient {
    let storage = InMemoryFiles(
      Dictionary(files.map { ($0.key.description, $0.value) }, uniquingKeysWith: { $1 }))
    return FileClient(
      read: { path in
        guard let contents = storage.get(path.description) else {
          throw FileClientError.notFound(path)
        }
        return contents
      },
      write: { path, contents in storage.set(path.description, contents) },
      append: { path, contents in
        storage.set(path.description, (storage.get(path.description) ?? []) + contents)
      },
      list: { directory in storage.list(directory.isRoot ? "" : directory.description) },
      remove: { path in
        guard storage.remove(path.description) else { throw FileClientError.notFound(path) }
      },
      exists: { path in storage.get(path.description) != nil })
  }
}

final class InMemoryFiles: @unchecked Sendable {
  private let lock = NSLock()
  private var files: [String: [UInt8]]

  init(_ files: [String: [UInt8]]) { self.files = files }

  func get(_ path: String) -> [UInt8]? { lock.withLock { files[path] } }
  func set(_ path: String, _ contents: [UInt8]) { lock.withLock { files[path] = contents } }
  func remove(_ path: String) -> Bool { lock.withLock { files.removeValue(forKey: path) != nil } }
  func list(_ directory: String) -> [String] {
    let prefix = directory.isEmpty || directory == "." ? "" : directory + "/"
    return lock.withLock {
      files.keys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        .filter { !$0.contains("/") }.sorted()
    }
  }
}

extension FileClient: DependencyKey {
  public static let liveValue = FileClient.failing(
    "no live file client is configured in this build")

  public static let testValue = FileClient.failing("files are not provided in this test") {
    operation, path in
    reportIssue(
      """
      A test used "files" without providing it: \(operation) \(path)

      To fix, give the store a file client, for instance with \
      "dependencies: { $0.files = .inMemory([\\"notes.txt\\": \\"...\\"]) }".
      """)
  }

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
  public var files: FileClient {
    get { self[FileClient.self] }
    set { self[FileClient.self] = newValue }
  }
}
