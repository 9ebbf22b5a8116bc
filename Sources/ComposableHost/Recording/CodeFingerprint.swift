import ComposableLua
import Foundation
import LuaKit

/// A fingerprint of a feature's code: its file and the modules it required, by name and
/// contents. A session keeps the one it was recorded against, so a replay can say the code
/// changed since. FNV-1a, 64 bits: made to notice a change, not to resist a forger.
public enum CodeFingerprint {
  /// The fingerprint of `feature`'s code, loaded from `file`: `fnv1a64:` and 16 hex digits, over
  /// the file and the modules it has required, symlinks resolved. A file that cannot be read
  /// counts as empty.
  public static func of(_ feature: LuaFeature, file: URL) -> String {
    var files = [file.resolvingSymlinksInPath()]
    files += (feature.moduleFiles?.required ?? []).map { $0.resolvingSymlinksInPath() }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix(_ bytes: some Sequence<UInt8>) {
      for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01b3
      }
    }
    var seen: Set<String> = []
    for url in files where seen.insert(url.path).inserted {
      mix(url.lastPathComponent.utf8)
      mix([0])
      mix((try? LuaSourceFile.bytes(of: url)) ?? [])  // never waiting on a FIFO
      mix([0])
    }
    return "fnv1a64:" + String(hash, radix: 16).leftPadded(to: 16)
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
  }
}
