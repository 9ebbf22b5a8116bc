import ComposableLua
import Foundation
import Synchronization

/// The action types a feature's code names (`KnownActionTypes(scanning:modules:)`): its file and
/// the modules its last load required, scanned when first asked for, and again once the code
/// changed: a file saved (a hot reload), a module required since or no longer. Scanned when
/// asked, not at start: a scan costs milliseconds.
///
/// ```swift
/// let known = ScannedActionTypes(file: featureFile, modules: feature.moduleFiles)
/// let note = known.value.unknownTypeNote(for: action)
/// ```
public final class ScannedActionTypes: Sendable {
  private let file: URL
  private let modules: LuaModuleFiles?
  private let scanned = Mutex<(stamps: [FileStamp], types: KnownActionTypes)?>(nil)

  /// Scans `file` and the files of the modules `modules` notes as required by the last load.
  ///
  /// ```swift
  /// let feature = try LuaFeature(contentsOf: featureFile)
  /// let known = ScannedActionTypes(file: featureFile, modules: feature.moduleFiles)
  /// ```
  public init(file: URL, modules: LuaModuleFiles?) {
    self.file = file
    self.modules = modules
  }

  /// The types the code names now.
  public var value: KnownActionTypes {
    let files = [file] + (modules?.requiredByLastLoad ?? [])
    let stamps = files.map(FileStamp.init)
    return scanned.withLock { scanned in
      if let scanned, scanned.stamps == stamps { return scanned.types }
      let types = KnownActionTypes(scanning: file, modules: Array(files.dropFirst()))
      scanned = (stamps, types)
      return types
    }
  }

  /// A file as it is now: its path, size and time of change (nothing when it cannot be read).
  struct FileStamp: Equatable, Sendable {
    let path: String
    let size: Int64, seconds: Int, nanoseconds: Int

    init(_ url: URL) {
      path = url.path
      var status = stat()
      guard stat(url.path, &status) == 0 else {
        (size, seconds, nanoseconds) = (-1, 0, 0)
        return
      }
      size = Int64(status.st_size)
      seconds = status.st_mtim.tv_sec
      nanoseconds = status.st_mtim.tv_nsec
    }
  }
}
