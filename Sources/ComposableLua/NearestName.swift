/// The name a mistyped one most likely meant, among the names known: for "did you mean" in
/// messages (an action type, a field of a feature's table).
public enum NearestName {
  /// The candidate nearest to `name` by edit distance, when it is near enough to be a typo (at
  /// most 2 edits, and fewer than half its letters); nil when none is, or `name` is a candidate.
  ///
  /// ```swift
  /// NearestName.nearest(to: "intial_state", among: ["initial_state", "migrate"])
  /// // "initial_state"
  /// ```
  /// Failing that, a candidate that `name` begins (`toggle` for `toggle_read`), the shortest:
  /// a name cut short is a typo of its own kind.
  public static func nearest(to name: String, among candidates: some Sequence<String>) -> String? {
    let sorted = candidates.sorted()
    guard !sorted.contains(name) else { return nil }
    let limit = min(2, max(1, name.count / 2))
    var best: (String, Int)?
    for candidate in sorted {
      let distance = editDistance(name, candidate)
      if distance <= limit, distance < (best?.1 ?? .max) { best = (candidate, distance) }
    }
    if let best { return best.0 }
    guard name.count >= 3 else { return nil }
    return sorted.filter { $0.hasPrefix(name) }.min { $0.count < $1.count }
  }

  /// Edit distance by characters, where two neighbours swapped are one edit, as one slip of
  /// the fingers makes them (`--evn` for `--env`, `ipnut` for `input`): the optimal string
  /// alignment distance. Levenshtein's counts a swap as two, past the limit of a short name.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var beforePrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
        current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          current[j] = min(current[j], beforePrevious[j - 2] + 1)
        }
      }
      (beforePrevious, previous, current) = (previous, current, beforePrevious)
    }
    return previous[b.count]
  }
}
