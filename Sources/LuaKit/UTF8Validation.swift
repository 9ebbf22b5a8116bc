/// UTF-8 validation without generics: `String(validating:as:)` instantiates generic metadata
/// on each call, which costs more than the check itself for the short strings state is made of.
enum UTF8Validation {
  /// True when `bytes` is well-formed UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF).
  static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let count = bytes.count
    var index = 0
    // ASCII, eight bytes at a time.
    while index + 8 <= count {
      if base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
        break
      }
      index += 8
    }
    while index < count {
      let lead = base.load(fromByteOffset: index, as: UInt8.self)
      if lead < 0x80 {
        index += 1
        continue
      }
      func continuation(_ offset: Int) -> UInt8? {
        guard index + offset < count else { return nil }
        let byte = base.load(fromByteOffset: index + offset, as: UInt8.self)
        return byte & 0xC0 == 0x80 ? byte : nil
      }
      switch lead {
      case 0xC2...0xDF:
        guard continuation(1) != nil else { return false }
        index += 2
      case 0xE0...0xEF:
        guard let second = continuation(1), continuation(2) != nil else { return false }
        if lead == 0xE0 && second < 0xA0 { return false }  // overlong
        if lead == 0xED && second > 0x9F { return false }  // surrogate
        index += 3
      case 0xF0...0xF4:
        guard let second = continuation(1), continuation(2) != nil, continuation(3) != nil else {
          return false
        }
        if lead == 0xF0 && second < 0x90 { return false }  // overlong
        if lead == 0xF4 && second > 0x8F { return false }  // past U+10FFFF
        index += 4
      default:
        return false
      }
    }
    return true
  }

  /// The text, or nil when the bytes are not UTF-8.
  static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
    guard isValid(bytes) else { return nil }
    return String(decoding: bytes.bindMemory(to: UInt8.self), as: UTF8.self)
  }
}
