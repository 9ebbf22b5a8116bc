import CustomDump

/// Where `printChanges` writes: the console by default, anything else in tests or tools.
public struct ChangePrinter: Sendable {
  let write: @Sendable (String) -> Void
  /// Whether differences are coloured (for a terminal); only types with a `ValueNotation` of
  /// their own colour theirs.
  public let colored: Bool

  /// A printer that hands each report to `write`. With `colored`, the differences carry terminal
  /// colours (only for types with a `ValueNotation` of their own).
  ///
  /// ```swift
  /// let printer = ChangePrinter { report in
  ///   FileHandle.standardError.write(Data((report + "\n").utf8))
  /// }
  /// let reducer = Feature().printChanges(to: printer)
  /// ```
  public init(colored: Bool = false, _ write: @escaping @Sendable (String) -> Void) {
    self.colored = colored
    self.write = write
  }

  /// Prints each report to standard output with `print`, without colours.
  public static let console = Self { print($0) }

  /// Writes what `printChanges` prints for one action: the action, then the difference of the
  /// state, or "(No state changes)" when `difference` is nil. For reducers that find the
  /// difference their own way (a Lua feature's, from its transaction).
  /// `note`, when given, follows "(No state changes)": why the action may have changed nothing.
  public func write(action: String, difference: String?, note: String? = nil) {
    var report = "received action:\n"
    report += indented(action) + "\n"
    report += difference.map(indented) ?? "  (No state changes\(note.map { ": " + $0 } ?? ""))"
    write(report)
  }
}

extension Reducer {
  /// Prints each action this reducer receives and the diff of the state it led to, or
  /// "(No state changes)".
  ///
  /// ```swift
  /// let store = Store(initialState: Feature.State(), reducer: Feature().printChanges())
  /// ```
  public func printChanges(to printer: ChangePrinter = .console) -> PrintChangesReducer<Self> {
    PrintChangesReducer(base: self, printer: printer)
  }
}

/// The reducer `printChanges(to:)` returns. It runs `Base` unchanged, then writes the action and
/// the difference it made to the state to its printer; the effect is the base's, untouched.
public struct PrintChangesReducer<Base: Reducer>: Reducer {
  let base: Base
  let printer: ChangePrinter

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let before = state
    let effect = base.reduce(into: &state, action: action)
    printer.write(
      action: Notation.describe(action),
      difference: Notation.difference(before, state, colored: printer.colored, format: .default))
    return effect
  }
}

private func indented(_ text: String) -> String {
  text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
    .joined(separator: "\n")
}
