import Composable
import Foundation
import LuaKit

/// A Lua test's fixture directory (`TestStore.new{ files = "fixtures/todos" }`), copied so that
/// the test never changes it.
///
/// The fixture must be under the test file's folder, symlinks on the way included. The copy is
/// made as the live file client reads and writes: regular files (each within the read limit,
/// never waiting on one), directories, and symlinks copied as links (the copy's client refuses
/// one that leads out of it, as it would in the data directory). A FIFO, a device or a socket
/// is refused, naming it.
enum LuaTestFixture {
  static func copy(_ fixture: DataPath, under directory: URL) throws -> URL {
    let field = "TestStore.new: files"
    guard let folder = realPath(directory.path) else {
      throw LuaTestError("\(field): the test's folder \(directory.path) cannot be read")
    }
    let named = directory.appendingPathComponent(fixture.description).path
    guard let source = realPath(named) else {
      throw LuaTestError("\(field): no fixture directory \(named)")
    }
    guard source == folder || source.hasPrefix(folder == "/" ? "/" : folder + "/") else {
      throw LuaTestError(
        "\(field): \(fixture) leads outside the test's folder (through a symlink); a fixture "
          + "directory must be under \(folder)")
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw LuaTestError("\(field): no fixture directory \(named)")
    }
    let copy = FileManager.default.temporaryDirectory.appendingPathComponent(
      "lua-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
    try copyEntries(of: [], from: URL(fileURLWithPath: source), to: copy, fixture: fixture)
    return copy
  }

  /// Copies what is in the directory `components` of `source` into the same place in `copy`.
  private static func copyEntries(
    of components: [String], from source: URL, to copy: URL, fixture: DataPath
  ) throws {
    let here = components.reduce(source) { $0.appendingPathComponent($1) }
    for name in try FileManager.default.contentsOfDirectory(atPath: here.path).sorted() {
      let inner = components + [name]
      let relative: DataPath
      do { relative = try DataPath(validating: inner.joined(separator: "/")) } catch {
        throw LuaTestError("TestStore.new: files: in \(fixture): \(error)")
      }
      let entry = here.appendingPathComponent(name)
      let type =
        try FileManager.default.attributesOfItem(atPath: entry.path)[.type] as? FileAttributeType
      let target = copy.appendingPathComponent(relative.description)
      switch type {
      case .typeDirectory?:
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try copyEntries(of: inner, from: source, to: copy, fixture: fixture)
      case .typeRegular?:
        do {
          let bytes = try FileClient.readNow(relative, under: source)
          try FileClient.writeNow(relative, bytes, under: copy)
        } catch {
          throw LuaTestError("TestStore.new: files: in \(fixture): \(error)")
        }
      case .typeSymbolicLink?:
        let destination = try FileManager.default.destinationOfSymbolicLink(atPath: entry.path)
        try FileManager.default.createSymbolicLink(
          atPath: target.path, withDestinationPath: destination)
      default:
        throw LuaTestError(
          "TestStore.new: files: in \(fixture): \(relative) is not a regular file, a directory "
            + "or a symlink (a FIFO, a device or a socket?); a fixture holds only those")
      }
    }
  }

  /// `path` with every symlink resolved, or nil when it does not exist.
  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
