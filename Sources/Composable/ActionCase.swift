/// How a parent action holds a child action: embedding a child action into the parent's enum
/// and extracting it back out. The closure-based stand-in for a case path, so that the runtime
/// needs no macros (and no swift-syntax in every build).
///
/// ```swift
/// let counter = ActionCase<AppAction, CounterAction>(
///   embed: AppAction.counter,
///   extract: { if case let .counter(action) = $0 { action } else { nil } }
/// )
/// ```
public struct ActionCase<Root, Value>: Sendable {
  /// Wraps a child action in the parent's action: usually the parent's enum case itself.
  public let embed: @Sendable (Value) -> Root
  /// Takes the child action out of a parent action; nil when the parent action is another case.
  public let extract: @Sendable (Root) -> Value?

  /// An action case from its two directions: `embed` wraps a child action, `extract` unwraps it.
  ///
  /// ```swift
  /// static let counterCase = ActionCase<AppAction, Counter.Action>(
  ///   embed: AppAction.counter,
  ///   extract: { if case let .counter(action) = $0 { action } else { nil } })
  /// ```
  public init(
    embed: @escaping @Sendable (Value) -> Root, extract: @escaping @Sendable (Root) -> Value?
  ) {
    self.embed = embed
    self.extract = extract
  }

  /// `self` followed by `child`: embeds a grandchild action into the root in one step.
  public func appending<Child>(_ child: ActionCase<Value, Child>) -> ActionCase<Root, Child> {
    ActionCase<Root, Child>(
      embed: { self.embed(child.embed($0)) },
      extract: { self.extract($0).flatMap(child.extract) }
    )
  }
}
