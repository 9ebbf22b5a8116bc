import Foundation
import Synchronization

/// The data directory as a run's writes find it: made, and (the default one) claimed for the
/// feature (`DataDirectoryOwner`) before the first write, whatever writes: a save, a file effect,
/// a save at a signal. A feature that did not persist at start and came to in a reload, or that
/// writes files, wrote into another feature's folder unclaimed; a refusal fails the write.
final class ClaimedDataDirectory: Sendable {
  let root: URL
  /// The feature the directory is claimed for; nil for one named with `--data`.
  let feature: URL?
  private let claimed = Mutex(false)

  init(root: URL, feature: URL?) {
    self.root = root
    self.feature = feature
  }

  /// Makes the directory, and claims it, saying so when it took it over: once, and again when
  /// its marker is gone (the folder removed while the run went on, and made again here: it would
  /// be no feature's, for another run to take).
  func prepare() throws {
    try DataDirectory.make(root)
    guard let feature else { return }
    if claimed.withLock({ $0 }), markerIsThere() { return }
    let claim = try DataDirectoryOwner.claim(root, for: feature, makesFolder: true)
    claimed.withLock { $0 = true }
    if case let .takenOver(from) = claim { printError(Self.takeOverNote(root, from), kind: "note") }
  }

  private func markerIsThere() -> Bool {
    var status = stat()
    return lstat(root.appendingPathComponent(DataDirectoryOwner.markerName).path, &status) == 0
  }

  /// What a run says when it took the directory over.
  static func takeOverNote(_ root: URL, _ from: String?) -> String {
    guard let from else {
      return "the data directory \(root.path) held a marker that names no feature: it is kept "
        + "for this feature now"
    }
    return "the data directory \(root.path) was kept for \(from), which is not there any more: "
      + "it is kept for this feature now, and what that feature left there is this one's"
  }
}
