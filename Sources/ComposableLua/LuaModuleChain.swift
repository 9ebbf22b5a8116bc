import Foundation
import LuaKit

/// Modules from several resolvers, the first that has a module winning: the built-in library
/// first, then the feature's own directory.
struct LuaModuleChain: LuaModuleResolver {
  let resolvers: [any LuaModuleResolver]

  func source(ofModule name: String) throws -> LuaModuleSource? {
    for resolver in resolvers {
      if let source = try resolver.source(ofModule: name) { return source }
    }
    return nil
  }

  func searchDescription(for name: String) -> String {
    resolvers.map { $0.searchDescription(for: name) }.joined(separator: "; ")
  }
}

/// The modules every feature's sandbox has as values: `composable.journal`, whose `table()`
/// makes a table journaled with the state (the library's bookkeeping, rolled back with a
/// failed action) and whose `was_set`/`had_element` say what the state held when the action
/// began, and `composable.json`.
func builtInPreloads(in vm: LuaVM) -> [String: LuaValue] {
  let modules: [String: LuaValue] = [
    "composable.journal": .other(vm.journalModule()),
    "composable.json": .other(vm.jsonModule()),
  ]
  assert(Set(modules.keys) == Set(builtInPreloadNames))
  return modules
}

/// The names of `builtInPreloads`, which a failed `require` lists with the library's modules.
let builtInPreloadNames = ["composable.journal", "composable.json"]

/// The files of the modules a feature has required, beside it: what a host watches for hot
/// reload. A resolver around the feature's directories that notes each file it serves.
public final class LuaModuleFiles: LuaModuleResolver, @unchecked Sendable {
  let directories: LuaModuleDirectories
  private let lock = NSLock()
  private var files: Set<URL> = []
  /// A digest of each module's source served since `startLoad()`, by file name: the modules
  /// the code being loaded required, for its fingerprint (`LuaFeature.codeFingerprint`).
  private var digests: [String: UInt64] = [:]
  /// The file each module was served from, by name, since the feature was made.
  private var served: [String: URL] = [:]
  /// Whether a module whose file is empty is refused: after the first load (a swap), when an
  /// empty file is one being saved (an editor truncates, then writes).
  private var refusesEmpty = false
  private var awaited: URL?

  /// Whether a module's chunk is named by its path as `LuaTestPath` gives it, not relative to
  /// its directory: a test's messages name files as the person can open them.
  let namesChunksByPath: Bool

  init(_ directories: LuaModuleDirectories, namesChunksByPath: Bool = false) {
    self.directories = directories
    self.namesChunksByPath = namesChunksByPath
  }

  /// The files required so far (the feature's own file is not among them).
  public var required: [URL] { lock.withLock { files.sorted { $0.path < $1.path } } }

  /// The module `name` from the feature's directories, its file noted in `required`.
  public func source(ofModule name: String) throws -> LuaModuleSource? {
    guard var source = try directories.source(ofModule: name) else {
      // Served before and gone now: deleted to be written again, most likely.
      lock.withLock { if awaited == nil, let file = served[name] { awaited = file } }
      return nil
    }
    if let file = directories.fileURL(ofModule: name) {
      let digest = CodeDigest.of(source.bytes.bytes)
      let empty = lock.withLock {
        _ = files.insert(file.standardizedFileURL)
        served[name] = file.standardizedFileURL
        guard !(refusesEmpty && source.bytes.bytes.isEmpty) else {
          if awaited == nil { awaited = file.standardizedFileURL }
          return true
        }
        digests[name] = digest
        return false
      }
      if empty {
        throw LuaModuleEmpty(
          message: "\(file.lastPathComponent) is empty (a save under way?), and a module that "
            + "gives nothing is not loaded in a reload")
      }
      if namesChunksByPath { source.chunkName = LuaTestPath.display(file) }
    }
    return source
  }

  /// The files of the modules the last load of the feature's code required (since
  /// `startLoad()`, a `require` in `reduce` too): those of the code running, where `required`
  /// also keeps the files an older load required, which a host goes on watching.
  public var requiredByLastLoad: [URL] {
    let names = lock.withLock { Array(digests.keys) }.sorted()
    return names.compactMap { directories.fileURL(ofModule: $0)?.standardizedFileURL }
  }

  /// The file of a module the last load stopped at because it was empty, or gone after an
  /// earlier load served it: a save under way, most likely, for a host to wait for rather than
  /// call the new code broken. Nil when the last load met neither.
  public var awaitedModule: URL? { lock.withLock { awaited } }

  /// Forgets the modules served so far for `loadedDigests`: a load of the feature's code (a swap)
  /// starts. From the first, an empty module file is refused (`awaitedModule`).
  func startLoad() {
    lock.withLock {
      digests = [:]
      awaited = nil
      refusesEmpty = true
    }
  }

  /// The modules served since `startLoad()`, by name, with a digest of each one's source.
  var loadedDigests: [(name: String, digest: UInt64)] {
    lock.withLock { digests.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
  }

  /// The modules served since `startLoad()` as their files hold them now, by name, with a
  /// digest of each one's source as `loadedDigests` has it; nil when one cannot be read.
  var digestsOnDisk: [(name: String, digest: UInt64)]? {
    var found: [(name: String, digest: UInt64)] = []
    for (name, _) in loadedDigests {
      guard let source = try? directories.source(ofModule: name) else { return nil }
      found.append((name, CodeDigest.of(source.bytes.bytes)))
    }
    return found
  }

  /// The files `name` was looked for at, as `LuaModuleDirectories` lists them.
  public func searchDescription(for name: String) -> String {
    directories.searchDescription(for: name)
  }
}

/// A module file that is empty in a reload (`LuaModuleFiles.awaitedModule`).
struct LuaModuleEmpty: Error, CustomStringConvertible {
  let message: String
  var description: String { message }
}
