import IssueReporting

extension Reducer {
  /// Runs the presented child at `presents` (as TCA's `ifLet(\.$destination, ...)`): an action
  /// `.presented(_)` runs `destination` on it; `.dismiss` closes it after this reducer has seen
  /// the action. The child's effects come back as `.presented` actions and end when it closes
  /// or is replaced by another (another enum case, or another id for an `Identifiable` child);
  /// its dismissal (`Effect.dismiss`, `send.dismiss()`, or an action that is a
  /// `DismissRequest`, such as a Lua child's `composable.dismiss`) closes it. An alert or a
  /// confirmation dialog closes after the action of its button.
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .ifLet(\.$destination, action: detailDestination) { Destination() }
  /// ```
  public func ifLet<Destination: Reducer>(
    _ presents: WritableKeyPath<State, Presents<Destination.State>>,
    action: ActionCase<Action, PresentationAction<Destination.Action>>,
    destination: () -> Destination,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> PresentationReducer<Self, Destination> {
    PresentationReducer(
      parent: self, presents: presents, action: action, destination: destination(),
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// `ifLet(_:action:destination:)` for a child with no reducer of its own: an alert or a
  /// confirmation dialog, whose buttons' actions the parent handles.
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .ifLet(\.$alert, action: alertCase)
  /// ```
  public func ifLet<DestinationState, DestinationAction: Sendable>(
    _ presents: WritableKeyPath<State, Presents<DestinationState>>,
    action: ActionCase<Action, PresentationAction<DestinationAction>>,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> PresentationReducer<Self, EmptyReducer<DestinationState, DestinationAction>> {
    ifLet(
      presents, action: action, destination: { EmptyReducer() }, fileID: fileID,
      filePath: filePath, line: line, column: column)
  }
}

/// The reducer `ifLet(_:action:destination:)` returns for a `Presents` child. It runs the
/// presented child's actions, then the parent; it closes the child on `.dismiss`, on the
/// child's own request, and after an alert's or a dialog's button; and it cancels the child's
/// effects when the child closes or is replaced.
public struct PresentationReducer<Parent: Reducer, Destination: Reducer>: Reducer {
  let parent: Parent
  let presents: WritableKeyPath<Parent.State, Presents<Destination.State>>
  let action: ActionCase<Parent.Action, PresentationAction<Destination.Action>>
  let destination: Destination
  let site: CallSite

  public func reduce(
    into state: inout Parent.State, action parentAction: Parent.Action
  ) -> Effect<Parent.Action> {
    let effectsID = EffectID(ChildEffectsID(path: presents, element: 0))
    let before = state[keyPath: presents].wrappedValue.map(PresentationIdentity.init)
    var closes = false
    var childEffect = Effect<Parent.Action>.none
    switch action.extract(parentAction) {
    case nil: break
    case .dismiss: closes = true
    case let .presented(childAction):
      if state[keyPath: presents].wrappedValue == nil {
        reportNothingPresented(childAction)
      } else if requestsDismissal(childAction) {
        closes = true
      } else {
        let embed = action.embed
        childEffect = destination.reduce(
          into: &state[keyPath: presents].wrappedValue!, action: childAction
        )
        .dismissalsFromActions()
        .scopingIDs(to: effectsID)
        .map { embed(.presented($0)) }
        .dismissing(with: embed(.dismiss))
        .cancellable(id: effectsID)
        // A child that refused the action: the parent does not go on as if it had succeeded.
        if childEffect.failure != nil { return childEffect }
        closes = before?.isDialog == true
      }
    }
    let parentEffect = parent.reduce(into: &state, action: parentAction)
    var after = state[keyPath: presents].wrappedValue.map(PresentationIdentity.init)
    // What closes is what was presented: not what the parent presented in its place.
    if closes, after != nil, after == before {
      state[keyPath: presents].wrappedValue = nil
      after = nil
    }
    let cancel: Effect<Parent.Action> =
      before != nil && after != before ? .cancel(id: effectsID) : .none
    return .merge(childEffect, parentEffect, cancel)
  }

  private func reportNothingPresented(_ childAction: Destination.Action) {
    reportIssue(
      """
      A presentation ("ifLet") at "\(site.fileID):\(site.line)" received an action for its \
      child when nothing was presented.

          Action: \(childAction)

      This usually means the action was sent after the child was dismissed, for instance by \
      an effect that was not cancelled. To fix, send a child's actions only while it is \
      presented.
      """, fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column)
  }
}

/// Which child is presented, for telling a child apart from the one that replaced it: its enum
/// case, and its id when it (or the case's value) is `Identifiable`.
struct PresentationIdentity: Equatable {
  let kind: String
  let id: AnyHashable?
  let isDialog: Bool

  init(_ value: Any) {
    let mirror = Mirror(reflecting: value)
    var payload = value
    if mirror.displayStyle == .enum {
      if let child = mirror.children.first {
        kind = child.label ?? ""
        payload = child.value
      } else {
        kind = "\(value)"
      }
    } else {
      kind = "\(type(of: value))"
    }
    let dialog = payload as? any DialogState ?? value as? any DialogState
    id =
      dialog.map { AnyHashable($0.presentationID) }
      ?? (payload as? any Identifiable).map {
        Self.id(of: $0)
      }
    isDialog = dialog != nil
  }

  private static func id<Value: Identifiable>(of value: Value) -> AnyHashable {
    AnyHashable(value.id)
  }

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.kind == rhs.kind && lhs.id == rhs.id }
}
