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

  /// The places where `restored` is not shaped as `initial` (at most `limit`, in key order,
  /// outer ones first), and how many there are in all. Only records are compared, the fields of
  /// tables under string keys: a list's elements are data (an initial list is mostly empty),
  /// and a field the initial state leaves nil may be anything. Deeper than `depth` levels is
  /// not walked.
  ///
  /// ```swift
  /// let (gaps, count) = RestoredShapeGap.gaps(
  ///   restored: ["n": 3], initial: ["n": 0, "filter": "all"])
  /// // gaps == [RestoredShapeGap(path: "filter", expected: "string", found: "nil")], count == 1
  /// ```
  public static func gaps(
    restored: LuaValue, initial: LuaValue, limit: Int = 5, depth: Int = 16
  ) -> (gaps: [RestoredShapeGap], count: Int) {
    var found: [RestoredShapeGap] = []
    var count = 0
    var seen: Set<LuaTableIdentity> = []
    func walk(_ restored: LuaTable, _ initial: LuaTable, path: String, level: Int) {
      // A table the initial state holds twice is walked once.
      guard level < depth, seen.insert(initial.identity).inserted else { return }
      let fields = initial.entries.compactMap { key, value in
        key.stringValue.map { (name: $0, key: key, value: value) }
      }
      var deeper: [(LuaTable, LuaTable, String)] = []
      let inOrder = fields.sorted { Array($0.name.utf8).lexicographicallyPrecedes($1.name.utf8) }
      for field in inOrder {
        let place = path + LuaValue.pathComponent(field.key, atRoot: path.isEmpty)
        let now = restored[field.key]
        let expected = kind(of: field.value), got = kind(of: now)
        if expected != got {
          count += 1
          if found.count < limit {
            found.append(RestoredShapeGap(path: place, expected: expected, found: got))
          }
        } else if let inner = field.value.tableValue, let nowInner = now.tableValue {
          deeper.append((nowInner, inner, place))
        }
      }
      for (nowInner, inner, place) in deeper {
        walk(nowInner, inner, path: place, level: level + 1)
      }
    }
    if let restoredTable = restored.tableValue, let initialTable = initial.tableValue {
      walk(restoredTable, initialTable, path: "", level: 0)
    }
    return (found, count)
  }

  /// Lua's type name, `number` for integers and floats alike.
  private static func kind(of value: LuaValue) -> String {
    switch value {
    case .integer, .number: "number"
    default: value.typeName
    }
  }
}
