import CustomDump

/// Where `printChanges` writes: the console by default, anything else in tests or tools.
public struct ChangePrinter: Sendable {
  let write: @Sendable (String) -> Void

  public init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }

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
    customDump(action, to: &report, indent: 2)
    report += "\n"
    if let difference = diff(before, state) {
      report += difference.split(separator: "\n", omittingEmptySubsequences: false)
        .map { "  " + $0 }.joined(separator: "\n")
    } else {
      report += "  (No state changes)"
    }
    printer.write(report)
    return effect
  }
}
