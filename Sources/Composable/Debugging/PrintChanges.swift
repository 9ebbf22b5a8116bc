import CustomDump

/// Where `printChanges` writes: the console by default, anything else in tests or tools.
public struct ChangePrinter: Sendable {
  let write: @Sendable (String) -> Void
  /// Whether differences are coloured (for a terminal); only types with a `ValueNotation` of
  /// their own colour theirs.
  let colored: Bool

  public init(colored: Bool = false, _ write: @escaping @Sendable (String) -> Void) {
    self.colored = colored
    self.write = write
  }

  public static let console = Self { print($0) }
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
    var report = "received action:\n"
    report += indented(Notation.describe(action)) + "\n"
    if let difference = Notation.difference(
      before, state, colored: printer.colored, format: .default)
    {
      report += indented(difference)
    } else {
      report += "  (No state changes)"
    }
    printer.write(report)
    return effect
  }
}

private func indented(_ text: String) -> String {
  text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
    .joined(separator: "\n")
}
