import Testing

@testable import LuaKit

/// A text for a person is cut at its limit with a note of what was cut, `… N more bytes`, but
/// never where the note would be as long as what it hides: a new user's start-up line read
/// `State: { ... }… 2 more bytes` where ` }` was all that was left.
@Suite struct LuaTextCutTests {
  /// Characters of one to four bytes, so that the limit falls inside sequences too.
  static let pieces = ["a", "b", " ", "}", "é", "✓", "🍕"]

  /// Texts of every length from the limit minus 8 to the limit plus 60, in random pieces.
  static func texts(limit: Int, seed: UInt64) -> [String] {
    var state = seed
    func next() -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(truncatingIfNeeded: state >> 33)
    }
    var texts: [String] = []
    for _ in 0..<400 {
      var text = ""
      let length = max(0, limit - 8) + next() % 68
      while text.utf8.count < length { text += pieces[next() % pieces.count] }
      texts.append(text)
    }
    return texts
  }

  @Test(arguments: [0, 1, 5, 16, 64, 200])
  func aTextIsWholeOrCutWhereTheNoteIsShorterThanTheCut(limit: Int) {
    for text in Self.texts(limit: limit, seed: UInt64(limit) + 7) {
      let shown = LuaText.capped(text, limit: limit)
      let total = text.utf8.count
      if total <= limit {
        #expect(shown == text)
        continue
      }
      let past = total - limit
      let note = LuaText.omission(past).utf8.count
      if past <= note {
        #expect(shown == text, "\(past) bytes past the limit, the note \(note): shown whole")
        continue
      }
      guard let range = shown.range(of: "… ", options: .backwards),
        shown.hasSuffix(" more bytes")
      else {
        Issue.record("\(shown) has no note")
        continue
      }
      let kept = String(shown[..<range.lowerBound])
      let counted = Int(shown[range.upperBound...].dropLast(" more bytes".count))
      #expect(text.utf8.starts(with: kept.utf8), "\(kept) is not where \(text) starts")
      #expect(kept.utf8.count <= limit && limit - kept.utf8.count <= 3)
      #expect(counted == total - kept.utf8.count, "\(shown)")
    }
  }

  /// Through a value's description, as the start-up line writes the state.
  @Test func aTableTwoBytesOverIsShownWhole() {
    let value: LuaValue = ["name": "x"]
    let whole = value.description(limit: 10_000)
    #expect(value.description(limit: whole.utf8.count - 2) == whole)
    #expect(value.description(limit: whole.utf8.count) == whole)
    let long: LuaValue = ["name": LuaValue(String(repeating: "y", count: 500))]
    #expect(long.description(limit: 100).hasSuffix(" more bytes"))
  }
}
