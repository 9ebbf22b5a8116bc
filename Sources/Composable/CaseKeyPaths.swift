@_exported import CasePathsCore
import IdentifiedCollections

// Actions as TCA 1.x writes them: a parent's action enum is `@CasePathable` (the macro from
// swift-case-paths' `CasePaths` product, or a conformance written by hand), and a case key path
// (`\.todos`) names a child's case wherever an `ActionCase` is taken: `Scope`, `ifLet`,
// `forEach`, the navigation reducers and `TestStore.receive`. Each overload turns the key path
// into the `ActionCase` the runtime works with, once, when the reducer is made.

extension ActionCase where Root: CasePathable & SendableMetatype {
  /// The case `keyPath` names: `ActionCase(\AppAction.counter)` embeds with `.counter(...)`
  /// and extracts with `action[case: \.counter]`.
  ///
  /// ```swift
  /// @CasePathable enum AppAction { case counter(CounterAction) }
  /// let counter = ActionCase(\AppAction.Cases.counter)
  /// ```
  public init(_ keyPath: CaseKeyPath<Root, Value>) {
    let keyPath = SendableCaseKeyPath(keyPath)
    self.init(embed: { keyPath.path($0) }, extract: { $0[case: keyPath.path] })
  }
}

/// A case key path held by the `@Sendable` closures of an `ActionCase`. A key path is an
/// immutable value; it is not declared `Sendable` because a key path may capture subscript
/// arguments that are not, and a case key path captures none.
struct SendableCaseKeyPath<Root, Value>: @unchecked Sendable {
  let path: CaseKeyPath<Root, Value>
  init(_ path: CaseKeyPath<Root, Value>) { self.path = path }
}

extension Scope where ParentAction: CasePathable {
  /// Runs `child` on `state` for the parent actions of the case `action`:
  ///
  /// ```swift
  /// Scope(state: \.counter, action: \.counter) { Counter() }
  /// ```
  public init(
    state: WritableKeyPath<ParentState, Child.State>,
    action: CaseKeyPath<ParentAction, Child.Action>,
    child: () -> Child
  ) {
    self.init(state: state, action: ActionCase(action), child: child)
  }
}

extension Reducer where Action: CasePathable {
  /// `ifLet` with the child's case named by a key path:
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .ifLet(\.editor, action: \.editor) { Editor() }
  /// ```
  public func ifLet<Child: Reducer>(
    _ state: WritableKeyPath<State, Child.State?>,
    action: CaseKeyPath<Action, Child.Action>,
    then child: () -> Child,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> IfLetReducer<Self, Child> {
    ifLet(
      state, action: ActionCase(action), then: child, fileID: fileID, filePath: filePath,
      line: line, column: column)
  }

  /// `forEach` over an identified array with the element's case named by a key path (its
  /// value is `(id:action:)`):
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .forEach(\.rows, action: \.row) { Row() }
  /// ```
  public func forEach<ID: Hashable & Sendable, Element: Reducer>(
    _ elements: WritableKeyPath<State, IdentifiedArray<ID, Element.State>>,
    action: CaseKeyPath<Action, (id: ID, action: Element.Action)>,
    element: () -> Element,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> ForEachReducer<Self, ID, Element> {
    forEach(
      elements, action: ActionCase(action), element: element, fileID: fileID,
      filePath: filePath, line: line, column: column)
  }

  /// A navigation stack with its case named by a key path:
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .forEach(\.path, action: \.path) { Path() }
  /// ```
  public func forEach<Destination: Reducer>(
    _ path: WritableKeyPath<State, StackState<Destination.State>>,
    action: CaseKeyPath<Action, StackAction<Destination.State, Destination.Action>>,
    destination: () -> Destination,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> StackReducer<Self, Destination> {
    forEach(
      path, action: ActionCase(action), destination: destination, fileID: fileID,
      filePath: filePath, line: line, column: column)
  }

  /// A presented child with its case named by a key path:
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .ifLet(\.$destination, action: \.destination) { Destination() }
  /// ```
  public func ifLet<Destination: Reducer>(
    _ presents: WritableKeyPath<State, Presents<Destination.State>>,
    action: CaseKeyPath<Action, PresentationAction<Destination.Action>>,
    destination: () -> Destination,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> PresentationReducer<Self, Destination> {
    ifLet(
      presents, action: ActionCase(action), destination: destination, fileID: fileID,
      filePath: filePath, line: line, column: column)
  }

  /// A presented alert or dialog (no reducer of its own) with its case named by a key path:
  ///
  /// ```swift
  /// Reduce { state, action in ... }
  ///   .ifLet(\.$alert, action: \.alert)
  /// ```
  public func ifLet<DestinationState, DestinationAction: Sendable>(
    _ presents: WritableKeyPath<State, Presents<DestinationState>>,
    action: CaseKeyPath<Action, PresentationAction<DestinationAction>>,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> PresentationReducer<Self, EmptyReducer<DestinationState, DestinationAction>> {
    ifLet(
      presents, action: ActionCase(action), fileID: fileID, filePath: filePath, line: line,
      column: column)
  }
}
