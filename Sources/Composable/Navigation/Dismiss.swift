import IssueReporting

extension Effect {
  /// Asks whoever presents this feature to dismiss it, as TCA's `dismiss` dependency does: a
  /// stack (`forEach` over a `StackState`) pops the screen and every screen above it, a
  /// presentation (`ifLet` over `Presents`) closes. From async work, `await send.dismiss()`.
  ///
  /// ```swift
  /// case .cancelButtonTapped:
  ///   return .dismiss
  /// ```
  public static var dismiss: Self { Self(.dismiss) }

  /// This effect with its dismissals (`Effect.dismiss`, `send.dismiss()`) turned into the
  /// action `dismissal`: how a stack or a presentation takes the dismissals of its child's
  /// effects (already mapped into the parent's actions) for its own. The action is sent from
  /// async work, under the child's cancellation id once the caller marks it so: a child closed
  /// or replaced in the action that asked (the parent presented another) has its dismissal
  /// cancelled with its effects, so it cannot close what came in its place.
  func dismissing(with dismissal: Action) -> Self {
    rewriting { effect in
      switch effect.operation {
      case .dismiss: return .run { send in await send(dismissal) }
      case let .run(priority, work):
        return Self(
          .run(priority) { send in
            await work(Send(send.deliver, dismissal: { await send(dismissal) }))
          })
      default: return nil
      }
    }
  }
}

extension Effect {
  /// This effect with the actions that request a dismissal (`DismissRequest`: a Lua child's
  /// `composable.dismiss`) turned into dismissals, sent or from async work: a child's request
  /// to close, however it makes it, reaches its stack or presentation the same way.
  func dismissalsFromActions() -> Self {
    rewriting { effect in
      switch effect.operation {
      case let .send(action): return requestsDismissal(action) ? .dismiss : effect
      case let .run(priority, work):
        return Self(
          .run(priority) { send in
            await work(
              Send(
                { action in
                  if requestsDismissal(action) { await send.dismiss() } else { await send(action) }
                }, dismissal: send.dismissal))
          })
      default: return nil
      }
    }
  }
}

extension Send {
  /// Asks whoever presents this feature to dismiss it (see `Effect.dismiss`), from async work:
  ///
  /// ```swift
  /// return .run { send in
  ///   try await save()
  ///   await send.dismiss()
  /// }
  /// ```
  public func dismiss() async {
    guard !Task.isCancelled else { return }
    await dismissal?()
  }
}

/// An action that asks the stack or presentation holding a feature to dismiss it, for
/// features whose effects send it as an action rather than returning `Effect.dismiss` (a Lua
/// feature's `composable.dismiss` sends the action `dismiss`). A stack or a presentation takes
/// such an action addressed to its child for its own: the child never receives it.
public protocol DismissRequest {
  /// Whether this action is a request to be dismissed.
  var requestsDismissal: Bool { get }
}

/// Whether `action` asks to dismiss its sender (see `DismissRequest`): it is such a request, or
/// an enum case that wraps one (a stack's `Path.Action.detail(<a Lua action>)`), so a Lua child
/// scoped into a Swift screen dismisses the screen, as TCA's `dismiss` closes the nearest
/// presented ancestor.
func requestsDismissal(_ action: Any) -> Bool {
  var action = action
  for _ in 0..<8 {
    if let request = action as? any DismissRequest { return request.requestsDismissal }
    let mirror = Mirror(reflecting: action)
    guard mirror.displayStyle == .enum, let payload = mirror.children.first?.value else {
      return false
    }
    action = payload
  }
  return false
}

func reportDismissOutsidePresentation() {
  reportIssue(
    """
    A feature asked to be dismissed, but nothing presents it.

    "Effect.dismiss" and "send.dismiss()" close the screen of a stack ("forEach" over a \
    "StackState") or a presented child ("ifLet" over "Presents"); at the top of a store there \
    is nothing to close. To fix, run the feature under a stack or a presentation, or send an \
    action of its own.
    """)
}
