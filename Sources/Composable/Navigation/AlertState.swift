/// An alert as plain state (as TCA's `AlertState`): a title, a message, and buttons with the
/// actions they send. Present it in a `Presents`; a tap on a button with an action sends
/// `.presented(action)` for the parent to handle, one with no action sends `.dismiss`; either
/// way the alert then closes.
///
/// ```swift
/// state.destination = .alert(AlertState(
///   title: "Delete?", message: "This cannot be undone.",
///   buttons: [
///     ButtonState(label: "Delete", action: .confirmDeletion, role: .destructive),
///     ButtonState(label: "Cancel", role: .cancel),
///   ]))
/// ```
public struct AlertState<Action>: DialogState {
  public var title: String
  public var message: String?
  public var buttons: [ButtonState<Action>]

  /// An alert; with no buttons it gets one, "OK", that dismisses it.
  public init(title: String, message: String? = nil, buttons: [ButtonState<Action>] = []) {
    self.title = title
    self.message = message
    self.buttons = buttons.isEmpty ? [ButtonState(label: "OK", role: .cancel)] : buttons
  }
}

/// A confirmation dialog (an action sheet) as plain state (as TCA's
/// `ConfirmationDialogState`); it is presented and behaves as an `AlertState` does.
public struct ConfirmationDialogState<Action>: DialogState {
  public var title: String
  public var message: String?
  public var buttons: [ButtonState<Action>]

  public init(title: String, message: String? = nil, buttons: [ButtonState<Action>] = []) {
    self.title = title
    self.message = message
    self.buttons = buttons.isEmpty ? [ButtonState(label: "Cancel", role: .cancel)] : buttons
  }
}

/// A button of an alert or a confirmation dialog: what it says, the action it sends (nil: it
/// only dismisses), and its role.
public struct ButtonState<Action> {
  public var label: String
  public var action: Action?
  public var role: ButtonRole?

  public init(label: String, action: Action? = nil, role: ButtonRole? = nil) {
    self.label = label
    self.action = action
    self.role = role
  }
}

public enum ButtonRole: Hashable, Sendable {
  case cancel, destructive
}

/// State that closes after any action of its own (an alert, a dialog): a presentation
/// dismisses it once the parent has handled the button's action.
protocol DialogState {}

extension AlertState: Equatable where Action: Equatable {}
extension AlertState: Hashable where Action: Hashable {}
extension AlertState: Sendable where Action: Sendable {}
extension ConfirmationDialogState: Equatable where Action: Equatable {}
extension ConfirmationDialogState: Hashable where Action: Hashable {}
extension ConfirmationDialogState: Sendable where Action: Sendable {}
extension ButtonState: Equatable where Action: Equatable {}
extension ButtonState: Hashable where Action: Hashable {}
extension ButtonState: Sendable where Action: Sendable {}
