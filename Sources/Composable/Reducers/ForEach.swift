import IdentifiedCollections
import IssueReporting

extension Reducer {
  /// Runs `element` on each element of an identified array, for the parent actions that carry
  /// an element's id and action (found in O(1) by id). The element runs first; elements the
  /// parent then removes have their effects cancelled.
  ///
  /// ```swift
  /// Reduce<Todos.State, Todos.Action> { state, action in ... }
  ///   .forEach(\.todos, action: Todos.todoCase) { Todo() }
  /// ```
  public func forEach<ID: Hashable & Sendable, Element: Reducer>(
    _ elements: WritableKeyPath<State, IdentifiedArray<ID, Element.State>>,
    action: ActionCase<Action, (id: ID, action: Element.Action)>,
    element: () -> Element,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> ForEachReducer<Self, ID, Element> {
    ForEachReducer(
      parent: self, elements: elements, action: action, element: element(), fileID: fileID,
      filePath: filePath, line: line, column: column)
  }
}

/// The reducer `forEach(_:action:element:)` returns for an identified array. It runs each
/// element's actions on that element, then the parent, and cancels the effects of the elements
/// the parent removed.
public struct ForEachReducer<Parent: Reducer, ID: Hashable & Sendable, Element: Reducer>: Reducer {
  let parent: Parent
  let elements: WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>>
  let action: ActionCase<Parent.Action, (id: ID, action: Element.Action)>
  let element: Element
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  public func reduce(
    into state: inout Parent.State, action parentAction: Parent.Action
  ) -> Effect<Parent.Action> {
    var elementEffect = Effect<Parent.Action>.none
    if let (id, elementAction) = action.extract(parentAction) {
      if state[keyPath: elements][id: id] != nil {
        let embed = action.embed
        let scope = EffectID(ChildEffectsID(path: elements, element: id))
        elementEffect = element.reduce(
          into: &state[keyPath: elements][id: id]!, action: elementAction
        )
        .scopingIDs(to: scope)
        .map { embed((id, $0)) }
        .cancellable(id: scope)
      } else {
        reportIssue(
          """
          A "forEach" at "\(fileID):\(line)" received an action for a missing element.

              Element id: \(id)
              Action: \(elementAction)

          This usually means the action was sent after the element was removed, for instance \
          by an effect that was not cancelled. To fix, make sure element actions are only sent \
          while the element exists.
          """, fileID: fileID, filePath: filePath, line: line, column: column)
      }
    }
    // An element that refused the action: the parent does not go on as if it had succeeded.
    if elementEffect.failure != nil { return elementEffect }
    let idsBefore = state[keyPath: elements].ids
    let parentEffect = parent.reduce(into: &state, action: parentAction)
    let idsAfter = state[keyPath: elements].ids
    var cancellations: [Effect<Parent.Action>] = []
    if idsBefore != idsAfter {
      for id in idsBefore where !idsAfter.contains(id) {
        cancellations.append(.cancel(id: ChildEffectsID(path: elements, element: id)))
      }
    }
    return .merge([elementEffect, parentEffect] + cancellations)
  }
}
