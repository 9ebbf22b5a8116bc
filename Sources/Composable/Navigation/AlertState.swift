import CustomDump

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
  /// The title, at the top of the alert.
  public var title: String
  /// The text under the title; nil for none.
  public var message: String?
  /// The buttons, in order. An alert made with none has one, "OK", that dismisses it.
  public var buttons: [ButtonState<Action>]
  /// Which alert this is, apart from others equal to it: an alert presented from another's
  /// button is a new one, not the one that closes. Not part of `==`.
  let presentationID = DialogIdentity.next()

  /// An alert; with no buttons it gets one, "OK", that dismisses it.
  ///
  /// ```swift
  /// state.alert = AlertState(title: "Saved")  // one button, "OK"
  /// ```
  public init(title: String, message: String? = nil, buttons: [ButtonState<Action>] = []) {
    self.title = title
    self.message = message
    self.buttons = buttons.isEmpty ? [ButtonState(label: "OK", role: .cancel)] : buttons
  }
}

/// A confirmation dialog (an action sheet) as plain state (as TCA's
/// `ConfirmationDialogState`); it is presented and behaves as an `AlertState` does.
public struct ConfirmationDialogState<Action>: DialogState {
  /// The title, at the top of the dialog.
  public var title: String
  /// The text under the title; nil for none.
  public var message: String?
  /// The buttons, in order. A dialog made with none has one, "Cancel", that dismisses it.
  public var buttons: [ButtonState<Action>]
  /// As an alert's (`AlertState.presentationID`).
  let presentationID = DialogIdentity.next()

  /// A dialog; with no buttons it gets one, "Cancel", that dismisses it.
  ///
  /// ```swift
  /// state.dialog = ConfirmationDialogState(
  ///   title: "Share",
  ///   buttons: [
  ///     ButtonState(label: "Copy link", action: .copyLink),
  ///     ButtonState(label: "Cancel", role: .cancel),
  ///   ])
  /// ```
  public init(title: String, message: String? = nil, buttons: [ButtonState<Action>] = []) {
    self.title = title
    self.message = message
    self.buttons = buttons.isEmpty ? [ButtonState(label: "Cancel", role: .cancel)] : buttons
  }
}

/// A button of an alert or a confirmation dialog: what it says, the action it sends (nil: it
/// only dismisses), and its role.
public struct ButtonState<Action> {
  /// The button's text.
  public var label: String
  /// The action a tap sends to the parent, as `.presented(action)`; nil when the button only
  /// dismisses.
  public var action: Action?
  /// What kind of button it is, for how it is shown; nil for a plain one.
  public var role: ButtonRole?

  /// A button; with no action, a tap only dismisses the alert or dialog.
  ///
  /// ```swift
  /// ButtonState(label: "Delete", action: .confirmDeletion, role: .destructive)
  /// ```
  public init(label: String, action: Action? = nil, role: ButtonRole? = nil) {
    self.label = label
    self.action = action
    self.role = role
  }
}

/// What a button does, so that whoever shows it can set it apart (as SwiftUI's `ButtonRole`).
public enum ButtonRole: Hashable, Sendable {
  /// `cancel`: closes the alert or dialog without doing anything.
  /// `destructive`: deletes or discards something, and is usually shown in red.
  case cancel, destructive
}

/// State that closes after any action of its own (an alert, a dialog): a presentation
/// dismisses it once the parent has handled the button's action. Each value made is a dialog
/// of its own (`presentationID`), whatever it says; `==`, hashing and a failing test's diff go
/// by what it says.
protocol DialogState {
  associatedtype Action
  var title: String { get }
  var message: String? { get }
  var buttons: [ButtonState<Action>] { get }
  var presentationID: Int { get }
}

extension DialogState {
  /// What the dialog says, for custom-dump: not its number.
  var whatItSaysMirror: Mirror {
    Mirror(
      self, children: ["title": title, "message": message as Any, "buttons": buttons],
      displayStyle: .struct)
  }
}

extension DialogState where Action: Equatable {
  func saysTheSame(as other: Self) -> Bool {
    title == other.title && message == other.message && buttons == other.buttons
  }
}

extension DialogState where Action: Hashable {
  func hashWhatItSays(into hasher: inout Hasher) {
    hasher.combine(title)
    hasher.combine(message)
    hasher.combine(buttons)
  }
}

/// The numbers that tell dialogs apart.
enum DialogIdentity {
  private static let last = LockedCounter()
  static func next() -> Int { Int(truncatingIfNeeded: last.next()) }
}

// What a dialog says, not which one it is: an expected alert equals the one presented.
extension AlertState: Equatable where Action: Equatable {
  /// Whether the two say the same (title, message, buttons), whichever presentation each is:
  ///
  /// ```swift
  /// $0.alert = AlertState(  // equals the alert the reducer presented
  ///   title: "Delete?",
  ///   buttons: [ButtonState(label: "Delete", action: .delete, role: .destructive)])
  /// ```
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.saysTheSame(as: rhs) }
}
extension AlertState: Hashable where Action: Hashable {
  public func hash(into hasher: inout Hasher) { hashWhatItSays(into: &hasher) }
}
extension AlertState: Sendable where Action: Sendable {}
extension AlertState: CustomDumpReflectable {
  /// What the alert says (title, message, buttons), for a failing test's diff; not which alert
  /// it is.
  public var customDumpMirror: Mirror { whatItSaysMirror }
}
extension ConfirmationDialogState: Equatable where Action: Equatable {
  /// Whether the two say the same (title, message, buttons), as for `AlertState`:
  ///
  /// ```swift
  /// #expect(store.state.dialog == ConfirmationDialogState(title: "Share"))
  /// ```
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.saysTheSame(as: rhs) }
}
extension ConfirmationDialogState: Hashable where Action: Hashable {
  public func hash(into hasher: inout Hasher) { hashWhatItSays(into: &hasher) }
}
extension ConfirmationDialogState: Sendable where Action: Sendable {}
extension ConfirmationDialogState: CustomDumpReflectable {
  /// What the dialog says (title, message, buttons), for a failing test's diff; not which dialog
  /// it is.
  public var customDumpMirror: Mirror { whatItSaysMirror }
}
extension ButtonState: Equatable where Action: Equatable {}
extension ButtonState: Hashable where Action: Hashable {}
extension ButtonState: Sendable where Action: Sendable {}
