/// The sleepers of a clock that something other than time moves (a test, a person at the
/// REPL): each registered with its deadline, taken earliest first (the first registered among
/// equals), or taken by id when its task is cancelled. Not locked: its clock holds it under its
/// own lock.
public struct ClockSleepers<Deadline: Comparable & Sendable> {
  /// A sleep waiting for its clock: its id, when it is due, and the continuation that wakes it.
  public struct Sleeper {
    /// The id `makeID()` gave it, for taking it off the list when its task is cancelled.
    public let id: Int
    /// The time on its clock at which the sleep ends.
    public let deadline: Deadline
    /// Resumed to end the sleep: normally when the clock reaches `deadline`, throwing
    /// `CancellationError` when the sleeping task is cancelled.
    public let continuation: CheckedContinuation<Void, any Error>
  }

  private var sleepers: [Sleeper] = []
  private var nextID = 0

  /// An empty list, for a clock to keep under its lock.
  ///
  /// ```swift
  /// private var sleepers = ClockSleepers<ManualClock.Instant>()
  /// ```
  public init() {}

  /// Whether no sleep is waiting.
  public var isEmpty: Bool { sleepers.isEmpty }
  /// How many sleeps are waiting.
  public var count: Int { sleepers.count }
  /// When the earliest sleep ends; nil when nothing sleeps.
  public var earliestDeadline: Deadline? { sleepers.map(\.deadline).min() }

  /// An id for a sleeper about to be added.
  public mutating func makeID() -> Int {
    nextID += 1
    return nextID
  }

  /// Registers a sleep under `id` (from `makeID()`) that `continuation` ends when the clock reaches
  /// `deadline`.
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
