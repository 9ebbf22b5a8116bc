/// Text written for a person, capped: what fits in `limit` bytes of UTF-8 is kept, and what
/// comes after is only counted, so the text ends `… N more bytes` (`LuaText.omission`). A text
/// over the limit by no more than that note would take is kept whole (`{ a = 1 }` cut to
/// `{ a = 1… 2 more bytes` told less in more): a few bytes past the limit are kept to know.
///
/// A text that only asks whether something fits (`counting: false`) stops counting at the
/// limit, and writers stop writing once it `isDone`: a measure costs the limit, not the value.
public struct LuaText {
  private(set) var bytes: [UInt8] = []
  let limit: Int
  let counting: Bool
  /// What is kept: the limit, and while counting a few bytes more, enough to hold any text
  /// that a note of what was cut would be longer than.
  private let capacity: Int
  /// Bytes written past the capacity (while counting; 1 once a measure overflowed).
  private(set) var omitted = 0

  /// Bytes kept past the limit while counting: more than `omission` of any count is long.
  static let slack = 40

  init(limit: Int, counting: Bool = true) {
    self.limit = max(limit, 0)
    self.counting = counting
    self.capacity =
      !counting ? self.limit : self.limit > Int.max - Self.slack ? Int.max : self.limit + Self.slack
  }

  /// Text with no limit: what must be whole (a data file, Lua source).
  static var unlimited: LuaText { LuaText(limit: .max) }

  var overflowed: Bool { omitted > 0 || bytes.count > limit }
  /// Whether anything more written is lost: a measure that overflowed.
  var isDone: Bool { omitted > 0 && !counting }
  /// How many more bytes fit before the limit.
  var room: Int { omitted > 0 ? 0 : limit - bytes.count }

  mutating func append(_ text: String) {
    var text = text
    text.withUTF8 { append(bytes: UnsafeRawBufferPointer($0)) }
  }

  mutating func append(byte: UInt8) {
    if omitted == 0, bytes.count < capacity {
      bytes.append(byte)
    } else {
      cut(adding: 1)
    }
  }

  mutating func append(bytes added: UnsafeRawBufferPointer) {
    guard omitted == 0 else { return count(added.count) }
    let fitting = min(added.count, capacity - bytes.count)
    bytes.append(contentsOf: added.prefix(fitting))
    if fitting < added.count { cut(adding: added.count - fitting) }
  }

  /// Counts `count` bytes written past the limit.
  mutating func count(_ count: Int) {
    if counting { omitted += count } else { omitted = max(omitted, 1) }
  }

  /// Over the capacity: a UTF-8 sequence it split goes whole into what is omitted.
  private mutating func cut(adding count: Int) {
    if omitted == 0 {
      var kept = bytes.count
      while kept > 0, bytes[kept - 1] & 0xC0 == 0x80 { kept -= 1 }
      if kept > 0, bytes[kept - 1] >= 0xC0 {  // a lead byte whose sequence was cut short
        let expected = Self.sequenceLength(bytes[kept - 1])
        if bytes.count - (kept - 1) < expected { kept -= 1 } else { kept = bytes.count }
      } else {
        kept = bytes.count
      }
      let dropped = bytes.count - kept
      bytes.removeLast(dropped)
      self.count(dropped + count)
    } else {
      self.count(count)
    }
  }

  private static func sequenceLength(_ lead: UInt8) -> Int {
    switch lead {
    case 0xF0...: 4
    case 0xE0...: 3
    default: 2
    }
  }

  /// The text, with `… N more bytes` after it when it was cut: at the limit (at the start of a
  /// UTF-8 sequence the limit splits), unless what is past the limit is no longer than the note.
  var string: String {
    guard overflowed else { return String(decoding: bytes, as: UTF8.self) }
    let past = bytes.count - limit
    if omitted == 0, past <= Self.omission(past).utf8.count {
      return String(decoding: bytes, as: UTF8.self)
    }
    var kept = min(limit, bytes.count)
    while kept > 0, kept < bytes.count, bytes[kept] & 0xC0 == 0x80 { kept -= 1 }
    return String(decoding: bytes[..<kept], as: UTF8.self)
      + Self.omission(bytes.count - kept + omitted)
  }

  /// `text` cut at `limit` bytes.
  public static func capped(_ text: String, limit: Int = LuaValue.descriptionLimit) -> String {
    var capped = LuaText(limit: limit)
    capped.append(text)
    return capped.string
  }

  /// What a cut text ends with: `… 12345 more bytes`.
  static func omission(_ count: Int) -> String { "… \(count) more bytes" }
}
