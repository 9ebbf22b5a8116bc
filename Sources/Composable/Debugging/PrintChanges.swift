import CustomDump

/// Where `printChanges` writes: the console by default, anything else in tests or tools.
public struct ChangePrinter: Sendable {
  let write: @Sendable (String) -> Void
  /// Whether differences are coloured (for a terminal); only types with a `ValueNotation` of
  /// their own colour theirs.
  public let colored: Bool

  public init(colored: Bool = false, _ write: @escaping @Sendable (String) -> Void) {
    self.colored = colored
    self.write = write
  }

  public static let console = Self { print($0) }

  /// Writes what `printChanges` prints for one action: the action, then the difference of the
  /// state, or "(No state changes)" when `difference` is nil. For reducers that find the
  /// difference their own way (a Lua feature's, from its transaction).
  public func write(action: String, difference: String?) {
    var report = "received action:\n"
    report += indented(action) + "\n"
    report += difference.map(indented) ?? "  (No state changes)"
    write(report)
  }
}

extension Reducer {
  /// Prints each action this reducer receives and the diff of the state it led to, or
  /// "(No state changes)".
  public func printChanges(to printer: ChangePrinter = .console) -> PrintChangesReducer<Self> {
    PrintChangesReducer(base: self, printer: printer)
  }
}

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
