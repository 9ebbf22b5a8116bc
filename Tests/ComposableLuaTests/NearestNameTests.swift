import Testing

@testable import ComposableLua

/// "Did you mean" counts two neighbours swapped as one slip (`--evn` for `--env`, a new user's
/// typo that got no suggestion): the distance checked against its definition, written as a
/// plain recursion, over every pair of strings of up to 4 letters from a small alphabet.
@Suite struct NearestNameTests {
  /// The optimal string alignment distance, by its definition.
  static func reference(_ a: [Character], _ b: [Character]) -> Int {
    var memo: [[Int?]] = Array(
      repeating: Array(repeating: nil, count: b.count + 1), count: a.count + 1)
    func d(_ i: Int, _ j: Int) -> Int {
      if let known = memo[i][j] { return known }
      var best: Int
      if i == 0 {
        best = j
      } else if j == 0 {
        best = i
      } else {
        best = min(
          d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] == b[j - 1] ? 0 : 1))
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          best = min(best, d(i - 2, j - 2) + 1)
        }
      }
      memo[i][j] = best
      return best
    }
    return d(a.count, b.count)
  }

  @Test func theDistanceIsItsDefinition() {
    var words: [String] = [""], level: [String] = [""]
    for _ in 1...4 {
      level = level.flatMap { word in ["a", "b", "c"].map { word + $0 } }
      words += level
    }
    for a in words {
      for b in words {
        #expect(
          NearestName.editDistance(a, b) == Self.reference(Array(a), Array(b)), "\(a) \(b)")
      }
    }
  }

  @Test func aSwapIsOneSlip() {
    #expect(NearestName.nearest(to: "evn", among: ["env", "data", "seed"]) == "env")
    #expect(NearestName.nearest(to: "ipnut", among: ["input", "output"]) == "input")
    #expect(NearestName.nearest(to: "reponse", among: ["url", "response"]) == "response")
    #expect(NearestName.nearest(to: "xyz", among: ["env", "data"]) == nil)
  }
}
