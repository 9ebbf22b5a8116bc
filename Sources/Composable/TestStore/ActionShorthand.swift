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
    // A case with no payload has no parts: its name tells it apart (the runtime's name of the
    // case: a `description` of the action's own may print two cases alike).
    if wantedParts.isEmpty || gotParts.isEmpty {
      guard wantedParts.isEmpty && gotParts.isEmpty else { return false }
      if wanted.displayStyle == .enum, let wantedCase = caseName(of: expected),
        let gotCase = caseName(of: received)
      {
        return wantedCase == gotCase
      }
      return String(describing: expected) == String(describing: received)
    }
    guard wantedParts.count == gotParts.count else { return false }
    return zip(wantedParts, gotParts).allSatisfy { wanted, got in
      wanted.label == got.label && matches(wanted.value, got.value)
    }
  }
}

/// The name of the enum case `value` is, as the runtime's reflection metadata has it (what a
/// default `description` prints); nil when the metadata was left out of the build.
private func caseName(of value: Any) -> String? {
  func name<Value>(_ value: Value) -> String? {
    swiftEnumCaseName(value).map { String(cString: $0) }
  }
  return _openExistential(value, do: name)
}

@_silgen_name("swift_EnumCaseName")
private func swiftEnumCaseName<Value>(_ value: Value) -> UnsafePointer<CChar>?

extension Equatable {
  fileprivate func isEqual(to other: Any) -> Bool { (other as? Self).map { $0 == self } ?? false }
}
