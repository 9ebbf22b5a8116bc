import Composable
import LuaKit

/// FNV-1a, 64 bits: made to notice a change of code, not to resist a forger.
enum CodeDigest {
  static let offset: UInt64 = 0xcbf2_9ce4_8422_2325

  static func of(_ bytes: some Sequence<UInt8>, from start: UInt64 = offset) -> UInt64 {
    var hash = start
    for byte in bytes {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    return hash
  }
}

/// `migrate(state)`: when a state made by other code meets this code. A hot reload runs it on
/// the state in memory (`swap`); a restore runs it on a state saved by other code
/// (`restorePersisted`), which the saved file's code fingerprint tells.
extension LuaFeature {
  /// The fingerprint of the code loaded: its source and the modules it required as it loaded,
  /// `fnv1a64:` and 16 hex digits. A saved state keeps the one of the code that saved it.
  static func codeFingerprint(of source: LuaString, modules: LuaModuleFiles?) -> String {
    var hash = CodeDigest.of(source.bytes)
    for (name, digest) in modules?.loadedDigests ?? [] {
      hash = CodeDigest.of([0] + Array(name.utf8) + [0], from: hash)
      hash = CodeDigest.of(withUnsafeBytes(of: digest.littleEndian) { Array($0) }, from: hash)
    }
    let hex = String(hash, radix: 16)
    return "fnv1a64:" + String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// The fingerprint of the code loaded now (`codeFingerprint(of:modules:)`).
  public var codeFingerprint: String { queue.access { $1.codeFingerprint } }

  /// Runs `migrate(state)` as a transaction: what it changed, read from the journal before the
  /// commit (or why that could not be read). If it raises, it is rolled back and its error
  /// thrown.
  func runMigration(
    _ migrate: LuaReference, in vm: LuaVM
  ) throws(LuaError) -> Result<[LuaDifference], LuaFeatureError> {
    try vm.callTransaction(migrate, state: stateProxy)  // rolled back if it fails
    let changes: Result<[LuaDifference], LuaFeatureError>
    do throws(LuaError) {
      changes = .success(try vm.transactionDifferences(root: stateReference))
    } catch {
      changes = .failure(.conversion(error))
    }
    vm.commitTransaction()
    return changes
  }

  /// The line of a saved state's header that holds the fingerprint of the code that saved it.
  static let savedCodePrefix = "code: "

  /// The fingerprint in the header of a saved state (`-- code: fnv1a64:...`, among the comment
  /// lines it starts with), or nil for a file without one: saved before fingerprints were
  /// kept, written by hand, or JSON.
  ///
  /// The fingerprint is exactly 16 lowercase hex digits, followed by the end of the line (`\n`,
  /// or `\r\n`) or a space. Anything else (a 17th digit, an upper-case one, a letter after
  /// them) is no fingerprint this code wrote: nil, so that `migrate(state)` runs on the state,
  /// as on one saved by other code. Reading only the first 16 would take
  /// `fnv1a64:<the current 16>99` for the current code.
  static func savedCodeFingerprint(in bytes: [UInt8]) -> String? {
    let marker = Array(("-- " + savedCodePrefix + "fnv1a64:").utf8)
    var start = bytes.startIndex
    while start < bytes.endIndex, bytes[start...].starts(with: "--".utf8) {
      let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
      let line = bytes[start..<end]
      if line.starts(with: marker) {
        let rest = line.dropFirst(marker.count)
        let digits = rest.prefix(16)
        guard digits.count == 16, digits.allSatisfy({ isHexDigit($0) }) else { return nil }
        let after = rest.dropFirst(16)
        guard after.isEmpty || after.first == UInt8(ascii: " ") || after.elementsEqual([13])
        else { return nil }
        return "fnv1a64:" + String(decoding: digits, as: UTF8.self)
      }
      start = end < bytes.endIndex ? end + 1 : end
    }
    return nil
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
      || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
  }
}
