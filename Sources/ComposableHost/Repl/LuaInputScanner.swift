/// What Lua text read so far leaves open (a bracket, a long string, a long comment), read a
/// line at a time in time linear in the text.
///
/// The REPL continues an input on the next line while Lua's parser says it is incomplete. Asking
/// the parser after every line parses the whole input again each time: a pasted table of 50,000
/// lines took minutes. The parser is asked only once nothing is left open here; what this
/// cannot see (a `function` without its `end`) is still the parser's to say, and is rare.
struct LuaInputScanner {
  /// Brackets `(`, `[`, `{` open, less those closed (negative: more closed than opened, which
  /// the parser will refuse).
  private var depth = 0
  /// Inside a long string or long comment: its level (the `=` signs).
  private var longLevel: Int?
  /// Bytes read: how large the input has grown.
  private(set) var count = 0

  /// Whether a bracket, a long string or a long comment is still open.
  var leavesSomethingOpen: Bool { depth > 0 || longLevel != nil }

  /// Reads one more line (its end of line included).
  mutating func read(_ line: [UInt8]) {
    count += line.count + 1
    var index = 0
    let end = line.count
    func byte(_ at: Int) -> UInt8? { at < end ? line[at] : nil }
    // The level of a long bracket `[==[` at `at`, or nil.
    func longOpening(at: Int) -> (level: Int, length: Int)? {
      guard byte(at) == UInt8(ascii: "[") else { return nil }
      var level = 0
      while byte(at + 1 + level) == UInt8(ascii: "=") { level += 1 }
      return byte(at + 1 + level) == UInt8(ascii: "[") ? (level, level + 2) : nil
    }
    while index < end {
      if let level = longLevel {  // look for `]==]` of this level
        if line[index] == UInt8(ascii: "]") {
          var equals = 0
          while byte(index + 1 + equals) == UInt8(ascii: "=") { equals += 1 }
          if equals == level, byte(index + 1 + equals) == UInt8(ascii: "]") {
            longLevel = nil
            index += equals + 2
            continue
          }
        }
        index += 1
        continue
      }
      switch line[index] {
      case UInt8(ascii: "-") where byte(index + 1) == UInt8(ascii: "-"):
        if let opening = longOpening(at: index + 2) {
          longLevel = opening.level
          index += 2 + opening.length
        } else {
          return  // a comment to the end of the line
        }
      case UInt8(ascii: "["):
        if let opening = longOpening(at: index) {
          longLevel = opening.level
          index += opening.length
        } else {
          depth += 1
          index += 1
        }
      case UInt8(ascii: "("), UInt8(ascii: "{"):
        depth += 1
        index += 1
      case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
        depth -= 1
        index += 1
      case let quote where quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"):
        // A short string ends on its line (one left open is the parser's error to give).
        index += 1
        while index < end, line[index] != quote {
          index += line[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        index += 1
      default:
        index += 1
      }
    }
  }
}
