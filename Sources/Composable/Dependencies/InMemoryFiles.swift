import Foundation

/// The files of `FileClient.inMemory`: a file system in miniature that answers as the live
/// client does, so that a test in memory sees what the app on disk would. Folders are made by
/// the writes under them and stay (a file written where a folder is, or under a file, fails in
/// the live client's words); a name of a write's temporary file is refused; hidden names are
/// not listed; a write past the read limit fails. Names are compared as bytes, as a disk does
/// (Swift's `String` takes `é` and `e` + U+0301 for one name). (Its root is there from the start:
/// the live client's is made at its first write.)
final class InMemoryFiles: @unchecked Sendable {
  private let lock = NSLock()
  /// Contents by path's bytes (`notes/today.txt`).
  private var files: [[UInt8]: [UInt8]] = [:]
  /// Every folder, by path's bytes; the root is empty.
  private var folders: Set<[UInt8]> = [[]]
  private let readLimit: Int

  init(_ files: [DataPath: [UInt8]], readLimit: Int = FileClient.defaultReadLimit) {
    self.readLimit = readLimit
    for (path, contents) in files {
      self.files[Self.key(path)] = contents
      addFolders(above: path)
    }
  }

  private static func key(_ path: DataPath) -> [UInt8] {
    path.isRoot ? [] : Array(path.description.utf8)
  }

  /// The keys of the folders on the way to `path`, from the top, with each one's name.
  private static func folderKeys(above path: DataPath) -> [(key: [UInt8], name: String)] {
    var prefix: [UInt8] = []
    return path.components.dropLast().map { component in
      if !prefix.isEmpty { prefix.append(UInt8(ascii: "/")) }
      prefix += component.utf8
      return (prefix, component)
    }
  }

  /// What is at a path.
  private enum Entry { case file, folder }

  private func entry(_ path: DataPath) -> Entry? {
    let key = Self.key(path)
    if files[key] != nil { return .file }
    return folders.contains(key) ? .folder : nil
  }

  /// The error for a path with a file where a folder on its way should be, as the live client
  /// says it ("a/b: a is not a directory"); nil when there is none.
  private func fileOnTheWay(_ path: DataPath) -> FileClientError? {
    for (key, name) in Self.folderKeys(above: path) where files[key] != nil {
      return FileClientError("\(path): \(name) is not a directory")
    }
    return nil
  }

  private func addFolders(above path: DataPath) {
    for (key, _) in Self.folderKeys(above: path) { folders.insert(key) }
  }

  func read(_ path: DataPath) throws -> [UInt8] {
    try lock.withLock {
      if let error = fileOnTheWay(path) { throw error }
      switch entry(path) {
      case .file: return files[Self.key(path)]!
      case .folder: throw FileClientError("\(path): is a directory")
      case nil: throw FileClientError.notFound(path)
      }
    }
  }

  func write(_ path: DataPath, _ contents: [UInt8], appending: Bool) throws {
    try FileClient.refuseTemporaryName(path)
    try lock.withLock {
      guard !path.isRoot, entry(path) != .folder else {
        throw FileClientError("\(path): is a directory")
      }
      if let error = fileOnTheWay(path) { throw error }
      let before = appending ? files[Self.key(path)] ?? [] : []
      guard contents.count <= readLimit, before.count <= readLimit - contents.count else {
        throw LiveFiles.overLimit(path, size: before.count + contents.count, limit: readLimit)
      }
      addFolders(above: path)
      files[Self.key(path)] = before + contents
    }
  }

  func list(_ path: DataPath) throws -> [String] {
    try lock.withLock {
      if let error = fileOnTheWay(path) { throw error }
      switch entry(path) {
      case .file: throw FileClientError("\(path): is not a directory")
      case nil: throw FileClientError.notFound(path)
      case .folder: break
      }
      let prefix = path.isRoot ? [] : Self.key(path) + [UInt8(ascii: "/")]
      var names = Set<[UInt8]>()
      let under = (Array(files.keys) + folders).filter {
        $0.count > prefix.count && $0.starts(with: prefix)
      }
      for key in under {
        let name = key.dropFirst(prefix.count)
        if !name.contains(UInt8(ascii: "/")), name.first != UInt8(ascii: ".") {
          names.insert(Array(name))
        }
      }
      // Sorted by bytes, as the live client sorts... its Strings: the same order for UTF-8.
      return names.map { String(decoding: $0, as: UTF8.self) }.sorted()
    }
  }

  func remove(_ path: DataPath) throws {
    try lock.withLock {
      guard !path.isRoot else {
        throw FileClientError("\(path): the root itself cannot be removed")
      }
      if let error = fileOnTheWay(path) { throw error }
      switch entry(path) {
      case .file: files[Self.key(path)] = nil
      case .folder: throw FileClientError("\(path): Is a directory")
      case nil: throw FileClientError.notFound(path)
      }
    }
  }

  func exists(_ path: DataPath) throws -> Bool {
    try lock.withLock {
      if let error = fileOnTheWay(path) { throw error }
      return entry(path) != nil
    }
  }
}
