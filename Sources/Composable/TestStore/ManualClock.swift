import Foundation

/// A clock whose time moves only when a test advances it, made for tests that run on a
/// `SingleThreadExecutor`.
///
/// Like swift-clocks' `TestClock`, `advance(by:)` wakes the sleepers whose deadlines it passes,
/// earliest first, each at its own deadline. Where `TestClock` yields to the global executor
/// many times around each wake-up (hoping every effect has got to its next sleep by then),
/// this clock settles the single-thread executor: it waits exactly until every job that can
/// run has run. A sleep until now or later suspends until an advance reaches it.
public final class ManualClock: Clock, @unchecked Sendable {
  /// A time on a `ManualClock`: how long after the clock was made.
  public struct Instant: InstantProtocol {
    /// The time since the clock was made.
    public let offset: Duration

    /// The instant `offset` after the clock was made.
    ///
    /// ```swift
    /// #expect(clock.now == ManualClock.Instant(offset: .seconds(2)))
    /// ```
    public init(offset: Duration = .zero) { self.offset = offset }
    /// The instant `duration` later.
    public func advanced(by duration: Duration) -> Self { Self(offset: offset + duration) }
    /// How long from this instant to `other`; negative when `other` is earlier.
    public func duration(to other: Self) -> Duration { other.offset - offset }
    /// Whether `lhs` comes before `rhs`.
    ///
    /// ```swift
    /// let isDue = deadline < clock.now
    /// ```
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
  }

  private let lock = NSLock()
  private var current = Instant()
  private var sleepers = ClockSleepers<Instant>()
  /// The single-thread executor its sleepers run on, when a TestStore made one (`settles(on:)`).
  private weak var settling: SingleThreadExecutor?

  /// Makes `advance` run on `executor` when called from elsewhere (a test's own task).
  func settles(on executor: SingleThreadExecutor) { lock.withLock { settling = executor } }

  /// A clock at its start (offset zero), with nothing asleep on it. For a TestStore to settle its
  /// thread after each wake-up, give it through the dependencies.
  ///
  /// ```swift
  /// let clock = ManualClock()
  /// let store = TestStore(
  ///   initialState: Ticker.State(), reducer: { Ticker(clock: $0.clock) },
  ///   dependencies: { $0.clock = clock })
  /// await store.send(.start)
  /// await clock.advance(by: .seconds(1))
  /// await store.receive(.tick) { $0.ticks = 1 }
  /// ```
  public init() {}

  /// Where the clock stands: it moves only with `advance(by:)`.
  public var now: Instant { lock.withLock { current } }
  /// Zero: the clock keeps any duration exactly.
  public var minimumResolution: Duration { .zero }

  /// How many sleeps are waiting for the clock.
  public var sleeperCount: Int { lock.withLock { sleepers.count } }

  /// When the earliest sleep ends; nil when nothing sleeps.
  public var nextDeadline: Instant? { lock.withLock { sleepers.earliestDeadline } }

  /// Suspends until an `advance(by:)` reaches `deadline`; a deadline already passed returns at
  /// once, and one at `now` waits for the next advance. Cancelling the task ends the sleep with
  /// `CancellationError`. `tolerance` is not used.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let id = lock.withLock { () -> Int? in
      guard deadline >= current else { return nil }
      return sleepers.makeID()
    }
    guard let id else { return }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        lock.withLock { sleepers.add(id: id, deadline: deadline, continuation: continuation) }
        // A cancel that came before the sleeper was registered found nothing to resume.
        if Task.isCancelled { wake(id, throwing: CancellationError()) }
      }
    } onCancel: {
      wake(id, throwing: CancellationError())
    }
  }

  /// Moves time forward by `duration`, waking each sleeper it passes at its deadline, and lets
  /// the work each wake-up starts run before the next.
  public func advance(by duration: Duration = .zero) async {
    await advance(by: duration, stoppingAt: nil)
  }

  /// `advance(by:)`, stopping between two wake-ups once the real time `deadline` has passed, or
  /// after `maximumWakeUps` of them (a timer ticking a billion times within the advance would
  /// otherwise keep the caller for as long, and whatever each tick leaves behind); the time
  /// stays at the last wake-up's. Returns false when it stopped so.
  ///
  /// ```swift
  /// let done = await clock.advance(by: .seconds(1000), stoppingAt: .now + .seconds(10))
  /// ```
  @discardableResult
  public func advance(
    by duration: Duration, stoppingAt deadline: ContinuousClock.Instant?,
    maximumWakeUps: Int? = nil
  ) async -> Bool {
    // Advanced from a test's own task while the effects run on a TestStore's thread: there,
    // so that settling it waits for exactly what each wake-up started.
    if SingleThreadExecutor.current == nil, let executor = lock.withLock({ settling }) {
      return await executor.run {
        await self.advance(by: duration, stoppingAt: deadline, maximumWakeUps: maximumWakeUps)
      }
    }
    let target = now.advanced(by: duration)
    await SingleThreadExecutor.letWorkRun()
    var wakeUps = 0
    while let next = takeSleeper(until: target) {
      next.continuation.resume()
      await SingleThreadExecutor.letWorkRun()
      wakeUps += 1
      if let deadline, ContinuousClock.now > deadline { return false }
      if let maximumWakeUps, wakeUps >= maximumWakeUps { return false }
    }
    lock.withLock { if current < target { current = target } }
    return true
  }

  /// The earliest sleeper due by `target` (the first registered among equals), with the time
  /// set to its deadline; nil when none is due.
  private func takeSleeper(until target: Instant) -> ClockSleepers<Instant>.Sleeper? {
    lock.withLock {
      guard let sleeper = sleepers.takeEarliest(dueBy: target) else { return nil }
      if current < sleeper.deadline { current = sleeper.deadline }
      return sleeper
    }
  }

  private func wake(_ id: Int, throwing error: any Error) {
    lock.withLock { sleepers.take(id: id) }?.continuation.resume(throwing: error)
  }
}
