/// A value an expected action may give in short: a Lua action's bare type (`"sort"`) stands for
/// any action of that type. `TestStore.receive(_:)` honours it at any depth of the expected
/// action, so a Lua child's action inside a Swift parent's enum case (`.todos("sort")`) reads
/// as it does in a Lua test.
public protocol ActionShorthand {
  /// Whether `self`, where an expected action has it, matches `received` there.
  func matchesReceived(_ received: Any) -> Bool
}

/// Whether the action `received` is the `expected` one, reading shorthands (`ActionShorthand`)
/// wherever the expected action holds them: equal values match; otherwise both are taken
/// apart alike (the same enum case, struct or tuple, by `Mirror`) and their parts matched.
enum ExpectedAction {
  static func matches(_ expected: Any, _ received: Any) -> Bool {
    if let shorthand = expected as? any ActionShorthand {
      return shorthand.matchesReceived(received)
    }
    if let equatable = expected as? any Equatable, equatable.isEqual(to: received) {
      return true
    }
    guard type(of: expected) == type(of: received) else { return false }
    let wanted = Mirror(reflecting: expected)
    let got = Mirror(reflecting: received)
    switch wanted.displayStyle {
    case .enum, .struct, .tuple, .optional:
      break
    default:
      return false  // not equal, and nothing inside to read differently
    }
    let wantedParts = Array(wanted.children)
    let gotParts = Array(got.children)
    // A case with no payload has no parts: its name tells it apart.
    if wantedParts.isEmpty || gotParts.isEmpty {
      return wantedParts.isEmpty && gotParts.isEmpty
        && String(describing: expected) == String(describing: received)
    }
    guard wantedParts.count == gotParts.count else { return false }
    return zip(wantedParts, gotParts).allSatisfy { wanted, got in
      wanted.label == got.label && matches(wanted.value, got.value)
    }
  }
}

extension Equatable {
  fileprivate func isEqual(to other: Any) -> Bool { (other as? Self).map { $0 == self } ?? false }
}
