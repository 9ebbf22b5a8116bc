import CustomDump

/// A type whose values the store's tools (`printChanges`, the TestStore's failure messages)
/// show in the notation of the people who write them, instead of custom-dump's Swift one: a Lua
/// value, say, in Lua syntax with Lua paths. Types that do not conform keep custom-dump's format.
public protocol ValueNotation {
  /// The value as its users write it, on one line.
  var notation: String { get }

  /// The differences from `old` to `new`, one line each, marked `-` (old) and `+` (new); nil
  /// when there are none.
  static func notationDifference(from old: Self, to new: Self, colored: Bool) -> String?
}

/// What the tools print for a value and a difference: a type's own notation when it has one,
/// custom-dump's otherwise.
enum Notation {
  static func describe<Value>(_ value: Value) -> String {
    if let notated = value as? any ValueNotation { return notated.notation }
    var text = ""
    customDump(value, to: &text)
    return text
  }

  /// `format` is custom-dump's, for types without a notation of their own.
  static func difference<Value>(
    _ old: Value, _ new: Value, colored: Bool = false, format: DiffFormat = .proportional
  ) -> String? {
    if let type = Value.self as? any ValueNotation.Type {
      return type.anyDifference(old, new, colored: colored)
    }
    return diff(old, new, format: format)
  }
}

extension ValueNotation {
  fileprivate static func anyDifference(_ old: Any, _ new: Any, colored: Bool) -> String? {
    guard let old = old as? Self, let new = new as? Self else { return nil }
    return notationDifference(from: old, to: new, colored: colored)
  }
}
