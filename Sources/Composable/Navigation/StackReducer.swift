import IssueReporting

extension Reducer {
  /// Runs the screens of the navigation stack at `path` (as TCA's `forEach(\.path, ...)`): an
  /// action `.element(id:action:)` runs `destination` on the screen `id`; `.popFrom(id:)` and
  /// `.push(_:)` pop and push after this reducer has seen them. A screen's effects come back as
  /// its element actions and are cancelled when it leaves the stack; its dismissal
  /// (`Effect.dismiss`, or an action that is a `DismissRequest`, such as a Lua screen's
  /// `composable.dismiss`) pops it and every screen above it.
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .forEach(\.path, action: appPath) { Path() }
  /// ```
  public func forEach<Destination: Reducer>(
    _ path: WritableKeyPath<State, StackState<Destination.State>>,
    action: ActionCase<Action, StackAction<Destination.State, Destination.Action>>,
    destination: () -> Destination,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> StackReducer<Self, Destination> {
    StackReducer(
      parent: self, path: path, action: action, destination: destination(),
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }
}

/// The reducer `forEach(_:action:destination:)` returns for a `StackState`. It runs each
/// screen's actions on that screen, then the parent; it pushes and pops after the parent; and
/// it cancels the effects of the screens that leave the stack.
public struct StackReducer<Parent: Reducer, Destination: Reducer>: Reducer {
  let parent: Parent
  let path: WritableKeyPath<Parent.State, StackState<Destination.State>>
  let action: ActionCase<Parent.Action, StackAction<Destination.State, Destination.Action>>
  let destination: Destination
  let site: CallSite

  public func reduce(
    into state: inout Parent.State, action parentAction: Parent.Action
  ) -> Effect<Parent.Action> {
    var then = StackChange<Destination.State>.nothing
    var screenEffect = Effect<Parent.Action>.none
    switch action.extract(parentAction) {
    case nil: break
    case let .element(id, screenAction):
      if state[keyPath: path][id: id] == nil {
        reportMissing(id, state[keyPath: path].ids, "an action for a screen", "\(screenAction)")
      } else if requestsDismissal(screenAction) {
        then = .pop(id)
      } else {
        let embed = action.embed
        let scope = EffectID(ChildEffectsID(path: path, element: id))
        screenEffect = destination.reduce(
          into: &state[keyPath: path][id: id]!, action: screenAction
        )
        .dismissalsFromActions()
        .scopingIDs(to: scope)
        .map { embed(.element(id: id, action: $0)) }
        .dismissing(with: embed(.popFrom(id: id)))
        .cancellable(id: scope)
        // A screen that refused the action: the parent does not go on as if it had succeeded.
        if screenEffect.failure != nil { return screenEffect }
      }
    case let .popFrom(id):
      if state[keyPath: path][id: id] == nil {
        reportMissing(id, state[keyPath: path].ids, "popFrom for a screen", nil)
      } else {
        then = .pop(id)
      }
    case let .push(screen):
      then = .push(screen)
    }
    let idsBefore = state[keyPath: path].ids
    let parentEffect = parent.reduce(into: &state, action: parentAction)
    switch then {
    case .nothing: break
    // The parent may have popped it already.
    case let .pop(id): state[keyPath: path].pop(from: id)
    case let .push(screen): state[keyPath: path].append(screen)
    }
    var effects = [screenEffect, parentEffect]
    let idsAfter = state[keyPath: path].ids
    if idsBefore != idsAfter {
      let kept = Set(idsAfter)
      for id in idsBefore where !kept.contains(id) {
        effects.append(.cancel(id: ChildEffectsID(path: path, element: id)))
      }
    }
    return .merge(effects)
  }

  private func reportMissing(
    _ id: StackElementID, _ ids: [StackElementID], _ what: String, _ screenAction: String?
  ) {
    let onStack = ids.isEmpty ? "none" : ids.map(\.description).joined(separator: ", ")
    let actionLine = screenAction.map { "\n    Action: \($0)" } ?? ""
    reportIssue(
      """
      A stack ("forEach") at "\(site.fileID):\(site.line)" received \(what) that is not on \
      the stack.

          Screen id: \(id)\(actionLine)
          Screens on the stack: \(onStack)

      This usually means the action was sent after the screen was popped, for instance by an \
      effect that was not cancelled. To fix, send a screen's actions only while it is on the \
      stack.
      """, fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column)
  }
}

/// What a stack does once its parent has seen the action.
private enum StackChange<Screen> {
  case nothing
  case pop(StackElementID)
  case push(Screen)
}
