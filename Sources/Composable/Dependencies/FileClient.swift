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
}

extension Error {
  /// True for a `FileClientError` that says the file is not there.
  public var isFileNotFound: Bool { (self as? FileClientError)?.code == .notFound }
}

/// File IO for effects, by path relative to a root the host chooses. The live client (confined
/// to its root, with atomic writes) comes with the live effects; tests use `inMemory()` or
/// their own answers.
public struct FileClient: Sendable {
  public var read: @Sendable (String) async throws -> [UInt8]
  public var write: @Sendable (String, [UInt8]) async throws -> Void
  public var append: @Sendable (String, [UInt8]) async throws -> Void
  public var list: @Sendable (String) async throws -> [String]
  public var remove: @Sendable (String) async throws -> Void
  public var exists: @Sendable (String) async throws -> Bool

  public init(
    read: @escaping @Sendable (String) async throws -> [UInt8],
    write: @escaping @Sendable (String, [UInt8]) async throws -> Void,
    append: @escaping @Sendable (String, [UInt8]) async throws -> Void,
    list: @escaping @Sendable (String) async throws -> [String],
    remove: @escaping @Sendable (String) async throws -> Void,
    exists: @escaping @Sendable (String) async throws -> Bool
  ) {
    self.read = read
    self.write = write
    self.append = append
    self.list = list
    self.remove = remove
    self.exists = exists
  }

  /// Files kept in memory: a real file system in miniature for tests, starting from `files`.
  public static func inMemory(_ files: [String: String] = [:]) -> FileClient {
    let storage = InMemoryFiles(files.mapValues { Array($0.utf8) })
    return FileClient(
      read: { path in
        guard let contents = storage.get(path) else { throw FileClientError.notFound(path) }
        return contents
      },
      write: { path, contents in storage.set(path, contents) },
      append: { path, contents in storage.set(path, (storage.get(path) ?? []) + contents) },
      list: { directory in storage.list(directory) },
      remove: { path in
        guard storage.remove(path) else { throw FileClientError.notFound(path) }
      },
      exists: { path in storage.get(path) != nil })
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
    FileClient(
      read: {
        report("read", $0); throw FileClientError("\(reason): read \($0)")
      },
      write: { path, _ in
        report("write", path); throw FileClientError("\(reason): write \(path)")
      },
      append: { path, _ in
        report("append", path); throw FileClientError("\(reason): append \(path)")
      },
      list: {
        report("list", $0); throw FileClientError("\(reason): list \($0)")
      },
      remove: {
        report("remove", $0); throw FileClientError("\(reason): remove \($0)")
      },
      exists: {
        report("exists", $0); throw FileClientError("\(reason): exists \($0)")
      })
  }
}

extension DependencyValues {
  public var files: FileClient {
    get { self[FileClient.self] }
    set { self[FileClient.self] = newValue }
  }
}
