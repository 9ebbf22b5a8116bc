import CustomDump

/// The id of a screen on a navigation stack: given when the screen is pushed, never used again
/// by that stack, so an action for a popped screen cannot reach one pushed since. Written as an
/// integer literal in tests (`.element(id: 0, action: ...)`), the first push's id being 0.
public struct StackElementID: Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
  CustomStringConvertible
{
  /// The number: 0 for the first push of a stack, then 1, 2, ...
  public let rawValue: Int

  /// The id numbered `rawValue`.
  ///
  /// ```swift
  /// state.path.pop(from: StackElementID(1))
  /// ```
  public init(_ rawValue: Int) { self.rawValue = rawValue }
  /// The id written as a number, as tests write it.
  ///
  /// ```swift
  /// await store.send(.path(.element(id: 0, action: .saveButtonTapped)))
  /// ```
  public init(integerLiteral value: Int) { self.rawValue = value }

  /// Whether `lhs` was pushed before `rhs`.
  ///
  /// ```swift
  /// let newest = state.path.ids.max()  // the id of the latest push still on the stack
  /// ```
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

  public var description: String { "#\(rawValue)" }
}

extension StackElementID: CustomDumpStringConvertible {
  public var customDumpDescription: String { description }
}

/// A navigation stack's state (as TCA's `StackState`): its screens, the bottom first, each with
/// the id it was pushed under. Run the screens' reducer with `forEach(_:action:destination:)`.
///
/// ```swift
/// struct App { var path = StackState<Path.State>() }
/// state.path.append(.detail(detail))      // push
/// state.path.removeLast()                  // pop
/// state.path.pop(from: id)                 // pop the screen `id` and those above it
/// ```
public struct StackState<Element> {
  /// The ids of the screens, the bottom first: `ids[i]` is the id of `self[i]`.
  public private(set) var ids: [StackElementID] = []
  private var elements: [Element] = []
  /// The id the next push takes.
  private var nextID = 0

  /// An empty stack.
  ///
  /// ```swift
  /// var path = StackState<Path.State>()
  /// ```
  public init() {}

  /// A stack holding `elements`, the bottom first, with ids 0, 1, ...
  ///
  /// ```swift
  /// var path = StackState<Path.State>([.list(List.State()), .detail(Detail.State())])
  /// ```
  public init(_ elements: some Sequence<Element>) {
    for element in elements { append(element) }
  }

  /// Pushes `element`; returns its id.
  @discardableResult
  public mutating func append(_ element: Element) -> StackElementID {
    let id = StackElementID(nextID)
    nextID += 1
    ids.append(id)
    elements.append(element)
    return id
  }

  /// Pops the top screen, returning it.
  @discardableResult
  public mutating func removeLast() -> Element {
    ids.removeLast()
    return elements.removeLast()
  }

  /// Pops the top screen when there is one.
  @discardableResult
  public mutating func popLast() -> Element? { isEmpty ? nil : removeLast() }

  /// Pops every screen (the ids go on: the next push does not take a popped screen's id).
  public mutating func removeAll() {
    ids.removeAll()
    elements.removeAll()
  }

  /// Pops the screen `id` and every screen above it; false when no screen has that id.
  @discardableResult
  public mutating func pop(from id: StackElementID) -> Bool {
    guard let index = ids.firstIndex(of: id) else { return false }
    removeFrom(index)
    return true
  }

  /// Pops every screen above the screen `id`, which stays on top; false when no screen has
  /// that id.
  @discardableResult
  public mutating func pop(to id: StackElementID) -> Bool {
    guard let index = ids.firstIndex(of: id) else { return false }
    removeFrom(index + 1)
    return true
  }

  private mutating func removeFrom(_ index: Int) {
    ids.removeSubrange(index...)
    elements.removeSubrange(index...)
  }

  /// The screen `id`, nil when it is not on the stack; set to nil to pop it alone.
  public subscript(id id: StackElementID) -> Element? {
    get { ids.firstIndex(of: id).map { elements[$0] } }
    _modify {
      let index = ids.firstIndex(of: id)
      var element = index.map { elements[$0] }
      defer {
        switch (index, element) {
        case let (index?, element?): elements[index] = element
        case let (index?, nil):
          ids.remove(at: index)
          elements.remove(at: index)
        case (nil, _): break
        }
      }
      yield &element
    }
    set {
      guard let index = ids.firstIndex(of: id) else { return }
      if let newValue {
        elements[index] = newValue
      } else {
        ids.remove(at: index)
        elements.remove(at: index)
      }
    }
  }
}

extension StackState: RandomAccessCollection, MutableCollection {
  public var startIndex: Int { elements.startIndex }
  public var endIndex: Int { elements.endIndex }
  /// The screen at `position`, 0 being the bottom; setting it replaces the screen and keeps its
  /// id.
  public subscript(position: Int) -> Element {
    get { elements[position] }
    set { elements[position] = newValue }
  }
}

extension StackState: ExpressibleByArrayLiteral {
  /// A stack holding the screens listed, the bottom first, with ids 0, 1, ...
  ///
  /// ```swift
  /// var path: StackState<Path.State> = [.list(List.State())]
  /// ```
  public init(arrayLiteral elements: Element...) { self.init(elements) }
}

// Two stacks are equal when they hold the same screens under the same ids; the id a next push
// would take is not part of the value (a test's expected stack is built from the last one).
extension StackState: Equatable where Element: Equatable {
  /// Whether the two hold the same screens under the same ids:
  ///
  /// ```swift
  /// await store.send(.path(.push(id: 0, state: .detail(Detail.State())))) {
  ///   $0.path[id: 0] = .detail(Detail.State())  // compared with ==
  /// }
  /// ```
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.ids == rhs.ids && lhs.elements == rhs.elements
  }
}

extension StackState: Hashable where Element: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ids)
    hasher.combine(elements)
  }
}

extension StackState: Sendable where Element: Sendable {}

// A failing test's diff shows each screen under its id.
extension StackState: CustomDumpReflectable {
  /// The screens as a dictionary from id to screen, the bottom first.
  public var customDumpMirror: Mirror {
    Mirror(
      self, unlabeledChildren: zip(ids, elements).map { (key: $0, value: $1) },
      displayStyle: .dictionary)
  }
}
