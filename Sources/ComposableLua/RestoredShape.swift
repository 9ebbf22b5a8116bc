import LuaKit

/// A place where a state restored from a file saved by other code is not shaped as the state
/// `initial_state()` gives: nothing where it has a value, or a value of another type. The code
/// of now was written for its own shape: a reducer reading `state.filter` that the old code
/// never saved fails on the first action, far from the cause. A restore finds these places
/// (`LuaFeature.restoredShapeGaps`) for the host to say, with `migrate(state)` as the fix.
public struct RestoredShapeGap: Equatable, Sendable {
  /// Where, as Lua code writes it: `filter`, `settings.theme`.
  public let path: String
  /// The type `initial_state()` gives there (`string`, `table`; `number` for both kinds).
  public let expected: String
  /// The type the restored state holds there; `nil` for nothing.
  public let found: String

  /// A gap at `path`.
  ///
  /// ```swift
  /// let missing = RestoredShapeGap(path: "filter", expected: "string", found: "nil")
  /// ```
  public init(path: String, expected: String, found: String) {
    self.path = path
    self.expected = expected
    self.found = found
  }

  /// The fields of `initial` (a table's, under string keys) that `restored` has not, or holds
  /// as a table where `initial` has none or the other way (at most `limit`, in the order of
  /// their names' bytes), and how many there are in all. Only the top level is compared, and
  /// only nothing against something and a table against a scalar: a table below may be a map
  /// (an initial `{ a = 1 }` that held `{ b = 2 }` lacks no field), and a scalar's type may
  /// change with the data (`selected = false` until one is), where an action reading a field
  /// that is not there, or indexing one that is no table, fails.
  ///
  /// ```swift
  /// let (gaps, count) = RestoredShapeGap.gaps(
  ///   restored: ["n": 3], initial: ["n": 0, "filter": "all"])
  /// // gaps == [RestoredShapeGap(path: "filter", expected: "string", found: "nil")], count == 1
  /// ```
  public static func gaps(
    restored: LuaValue, initial: LuaValue, limit: Int = 5
  ) -> (gaps: [RestoredShapeGap], count: Int) {
    guard let restoredTable = restored.tableValue, let initialTable = initial.tableValue else {
      return ([], 0)
    }
    var found: [RestoredShapeGap] = []
    var count = 0
    let fields = initialTable.entries.compactMap { key, value -> (LuaString, LuaValue, LuaValue)? in
      guard case let .string(name) = key else { return nil }
      return (name, key, value)
    }
    for (_, key, value) in fields.sorted(by: { $0.0.bytes.lexicographicallyPrecedes($1.0.bytes) }) {
      let now = restoredTable[key]
      let isGap =
        now == .nil || (value.tableValue == nil) != (now.tableValue == nil)
      guard isGap else { continue }
      count += 1
      if found.count < limit {
        found.append(
          RestoredShapeGap(
            path: LuaValue.pathComponent(key, atRoot: true), expected: kind(of: value),
            found: kind(of: now)))
      }
    }
    return (found, count)
  }

  /// The places as a note says them: `filter is nil where initial_state() gives a string,
  /// settings is a string where it gives a table (and 3 more)`.
  ///
  /// ```swift
  /// RestoredShapeGap.places([RestoredShapeGap(path: "filter", expected: "string", found: "nil")], count: 1)
  /// // "filter is nil where initial_state() gives a string"
  /// ```
  public static func places(_ gaps: [RestoredShapeGap], count: Int) -> String {
    let places = gaps.enumerated().map { index, gap in
      let said = gap.found == "nil" ? "is nil" : "is a \(gap.found)"
      return "\(gap.path) \(said) where \(index == 0 ? "initial_state()" : "it") gives a "
        + gap.expected
    }
    let more = count > gaps.count ? " (and \(count - gaps.count) more)" : ""
    return places.joined(separator: ", ") + more
  }

  /// What `migrate(state)` would do for the first gap, as Lua: `if state.filter == nil then
  /// state.filter = ... end`, or `state["a key"] = ...` for a name that is no Lua word.
  ///
  /// ```swift
  /// RestoredShapeGap.fix(for: [RestoredShapeGap(path: "filter", expected: "string", found: "nil")])
  /// // "`if state.filter == nil then state.filter = ... end`"
  /// ```
  public static func fix(for gaps: [RestoredShapeGap]) -> String {
    let path = gaps.first?.path ?? "field"
    let first = "state" + (path.hasPrefix("[") ? "" : ".") + path
    return gaps.first?.found == "nil"
      ? "`if \(first) == nil then \(first) = ... end`" : "`\(first) = ...`"
  }

  /// Lua's type name, `number` for integers and floats alike.
  private static func kind(of value: LuaValue) -> String {
    switch value {
    case .integer, .number: "number"
    default: value.typeName
    }
  }
}
