/// The sleepers of a clock that something other than time moves (a test, a person at the
/// REPL): each registered with its deadline, taken earliest first (the first registered among
/// equals), or taken by id when its task is cancelled. Not locked: its clock holds it under its
/// own lock.
public struct ClockSleepers<Deadline: Comparable & Sendable> {
  public struct Sleeper {
    public let id: Int
    public let deadline: Deadline
    public let continuation: CheckedContinuation<Void, any Error>
  }

  private var sleepers: [Sleeper] = []
  private var nextID = 0

  public init() {}

  public var isEmpty: Bool { sleepers.isEmpty }
  public var count: Int { sleepers.count }
  /// When the earliest sleep ends; nil when nothing sleeps.
  public var earliestDeadline: Deadline? { sleepers.map(\.deadline).min() }

  /// An id for a sleeper about to be added.
  public mutating func makeID() -> Int {
    nextID += 1
    return nextID
  }

  public mutating func add(
    id: Int, deadline: Deadline, continuation: CheckedContinuation<Void, any Error>
  ) {
    sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
  }

  /// The earliest sleeper due by `target`, taken off the list; nil when none is due.
  public mutating func takeEarliest(dueBy target: Deadline) -> Sleeper? {
    var earliest: Int?
    for index in sleepers.indices where sleepers[index].deadline <= target {
      if earliest.map({ sleepers[index].deadline < sleepers[$0].deadline }) ?? true {
        earliest = index
      }
    }
    return earliest.map { sleepers.remove(at: $0) }
  }

  /// The sleeper `id`, taken off the list (its task was cancelled); nil when it already woke.
  public mutating func take(id: Int) -> Sleeper? {
    guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
    return sleepers.remove(at: index)
  }
}
