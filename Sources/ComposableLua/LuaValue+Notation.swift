import Composable
import CustomDump
import LuaKit

/// Lua values, a Lua feature's state and actions, read by Lua users: printed as Lua literals
/// (`{ count = 1, todos = { { done = false } } }`), and their differences as Lua assignments on
/// Lua paths, 1-based (`- todos[1].done = false`, `+ todos[1].done = true`). This is what
/// `printChanges`, `composable run` and the TestStores (Lua's and Swift's) show for them.
extension LuaValue: ValueNotation {
  /// The value as a Lua literal: its `description`.
  public var notation: String { description }

  /// Where `new` differs from `old`, as Lua assignments, one line a side (see
  /// `LuaDifference.lines`); nil when they are equal.
  public static func notationDifference(
    from old: LuaValue, to new: LuaValue, colored: Bool
  ) -> String? {
    notation(of: LuaValue.differences(from: old, to: new), colored: colored)
  }

  /// An action's changes as read from its transaction: the lines `notation(of:colored:)` gives,
  /// nil when there are none, or why they could not be read.
  public static func notation(
    of changes: Result<[LuaDifference], LuaFeatureError>, colored: Bool
  ) -> String? {
    switch changes {
    case let .success(differences): notation(of: differences, colored: colored)
    case let .failure(error): "(the changes could not be read: \(error))"
    }
  }

  /// Differences as `notationDifference` prints them, one line a side; nil when there are none.
  public static func notation(of differences: [LuaDifference], colored: Bool) -> String? {
    guard !differences.isEmpty else { return nil }
    return differences.flatMap { $0.lines(colored: colored) }.joined(separator: "\n")
  }
}

/// A Lua value inside a Swift value (a Lua child's state in a Swift parent's): custom-dump
/// prints it, and a failing Swift test shows its differences, in Lua, 1-based, as it shows a
/// Lua feature's own, instead of a Swift dump of the enum (`[0]:`, `[:]`).
extension LuaValue: CustomDumpStringConvertible {
  public var customDumpDescription: String { pretty() }
}

/// In an action a test expects, a Lua action's shorthands read as they do in a Lua test: a bare
/// type (`"sort"`) matches any action of that type, and a composition's nested `action = "tick"`
/// is `{ type = "tick" }` (`LuaAction.normalizeNested`), wherever the expected action holds it:
/// inside a Swift parent's case too (`store.receive(.todos("sort"))`). The received action's
/// shorthands are read alike, so either form written in a test matches either form sent.
extension LuaValue: ActionShorthand {
  /// Whether `received`, a Lua action, is the one this expected action stands for: a bare type
  /// matches an action table of that type, and nested shorthands are expanded on both sides.
  public func matchesReceived(_ received: Any) -> Bool {
    guard let received = received as? LuaValue else { return false }
    if case .string = self { return received.tableValue?[LuaAction.typeField] == self }
    guard let expected = try? LuaAction.normalizeNested(self) else { return self == received }
    if expected == received { return true }
    // The received action read the same way: an effect may send a composition's action with
    // its child in short (`effect.send{ type = "path", id = 1, action = "appear" }`).
    return (try? LuaAction.normalizeNested(received)) == expected
  }
}
