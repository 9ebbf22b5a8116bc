import CustomDump

/// A presented child (as TCA's `@Presents`): a sheet, a screen, an alert or a confirmation
/// dialog, nil when nothing is presented. Run its reducer with `ifLet(\.$destination, ...)`.
///
/// ```swift
/// struct Detail {
///   @Presents var destination: Destination.State?
/// }
/// state.destination = .edit(Form.State(syncUp: state.syncUp))   // present
/// state.destination = nil                                       // dismiss
/// ```
@propertyWrapper
public struct Presents<State> {
  /// The presented child's state; nil when nothing is presented.
  public var wrappedValue: State?

  /// A presentation holding `wrappedValue`; the `@Presents` attribute calls it.
  ///
  /// ```swift
  /// @Presents var alert: AlertState<Action.Alert>? = nil
  /// ```
  public init(wrappedValue: State?) { self.wrappedValue = wrappedValue }

  /// The wrapper itself, for `ifLet(\.$destination, ...)`.
  public var projectedValue: Self {
    get { self }
    set { self = newValue }
  }
}

extension Presents: Equatable where State: Equatable {}
extension Presents: Hashable where State: Hashable {}
extension Presents: Sendable where State: Sendable {}

// A failing test's diff shows the presented value, not the wrapper around it.
extension Presents: CustomDumpRepresentable {
  public var customDumpValue: Any { wrappedValue as Any }
}

/// The actions of a presentation (as TCA's `PresentationAction`), embedded in the parent's.
public enum PresentationAction<Action> {
  /// An action of the presented child, run by its reducer (for an alert or a dialog: the
  /// action of the button tapped, for the parent; the dialog then closes).
  case presented(Action)
  /// Closes the child (a sheet swiped away, a button with no action), after the parent has
  /// seen the action.
  case dismiss
}

extension PresentationAction: Equatable where Action: Equatable {}
extension PresentationAction: Sendable where Action: Sendable {}
