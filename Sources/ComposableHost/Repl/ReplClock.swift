import Composable
import Foundation

/// The REPL's clock: real time until the person stops it (`:pause`, or `--paused` from the
/// start). Stopped, it moves only with `advance(by:)`, which wakes each sleeper it passes at its
/// deadline, earliest first, letting the work each wake-up starts run before the next, as a test
/// clock does. `:resume` lets time run again from where it stood.
///
/// Running, one task sleeps in real time until the earliest deadline and wakes what is due; a
/// new earlier sleeper, a pause or a resume starts it again.
public final class ReplClock: Clock, @unchecked Sendable {
  /// The time since the clock was made, as far as it has run (the test clock's instant).
  public typealias Instant = ManualClock.Instant

  private let lock = NSLock()
  // All under `lock`.
  private var paused: Bool
  /// The clock's time at `anchor` (real time), from which it runs while not paused.
  private var base: Duration = .zero
  private var anchor = ContinuousClock.now
  private var sleepers = ClockSleepers<Duration>()
  private var driver: Task<Void, Never>?
  private var sleepDueNow: (@Sendable () -> Void)?
  /// The sleepers whose deadline was the time the clock stood at when they began (paused).
  private var sleepsOfZero: Set<Int> = []

  /// A clock at zero that runs in real time, or, when `paused`, stands still until `resume()` or
  /// `advance(by:)` moves it (the REPL's `--paused`).
  ///
  /// ```swift
  /// let clock = ReplClock(paused: true)
  /// await clock.advance(by: .seconds(2))  // wakes each sleeper due by then, in order
  /// print(clock.now.offset)  // 2.0 seconds
  /// clock.resume()
  /// ```
  public init(paused: Bool = false) { self.paused = paused }

  deinit { driver?.cancel() }

  /// The clock's time: how far it has run since it was made.
  public var now: Instant { lock.withLock { Instant(offset: current()) } }
  /// Zero: a sleep or an advance may be as short as any duration.
  public var minimumResolution: Duration { .zero }

  /// Whether time stands still.
  public var isPaused: Bool { lock.withLock { paused } }

  private func current() -> Duration { paused ? base : base + (ContinuousClock.now - anchor) }

  /// Suspends until the clock reaches `deadline`: in real time while it runs, or when
  /// `advance(by:)` reaches it while paused. Running, it returns at once for a deadline already
  /// reached; paused, a deadline of now waits for the next advance (`advance(by: .zero)` too),
  /// as the test clock's does, so that a session's `sleep(0)` and the test `:test` writes from it
  /// agree. `tolerance` is not used. Throws `CancellationError` when the task is cancelled.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let (id, wokeNow) = lock.withLock { () -> (Int?, (@Sendable () -> Void)?) in
      if paused ? deadline.offset < base : deadline.offset <= current() {
        return (nil, sleepDueNow)  // due at once (running, a sleep of zero: noted)
      }
      let id = sleepers.makeID()
      if paused, deadline.offset == base { sleepsOfZero.insert(id) }
      return (id, nil)
    }
    wokeNow?()
    guard let id else { return }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        lock.withLock {
          sleepers.add(id: id, deadline: deadline.offset, continuation: continuation)
          restartDriver()
        }
        // A cancel that came before the sleeper was registered found nothing to resume.
        if Task.isCancelled { wake(id, throwing: CancellationError()) }
      }
    } onCancel: {
      wake(id, throwing: CancellationError())
    }
  }

  /// Calls `observer` (outside the clock's lock) as each sleep whose deadline the clock had
  /// reached when it began (a `sleep(0)`) ends, before its task goes on: at once while time
  /// runs, at the next advance while paused. A test clock wakes such a sleep only at an advance,
  /// so a test written from the session advances by zero where one woke (`SessionTestPlan`).
  public func noteSleepsDueNow(_ observer: @escaping @Sendable () -> Void) {
    lock.withLock { sleepDueNow = observer }
  }

  /// Stops time where it is.
  public func pause() {
    lock.withLock {
      guard !paused else { return }
      base = current()
      paused = true
      driver?.cancel()
      driver = nil
    }
  }

  /// Lets time run again from where it stood.
  public func resume() {
    lock.withLock {
      guard paused else { return }
      anchor = ContinuousClock.now
      paused = false
      restartDriver()
    }
  }

  /// While paused: moves time forward by `duration`, waking each sleeper it passes at its
  /// deadline, earliest first. False (and nothing moves) while time runs. Called on a
  /// `SingleThreadExecutor` the sleepers' tasks run on, it lets all the work a wake-up started
  /// run before the next (`SingleThreadExecutor.letWorkRun`); elsewhere it yields and hopes.
  @discardableResult
  public func advance(by duration: Duration) async -> Bool {
    await advance(by: duration, stoppingAt: nil) != .running
  }

  /// How an advance ended.
  public enum Advance: Equatable, Sendable {
    /// Time moved by the whole duration.
    case done
    /// Real time passed the deadline first: time stopped at the last wake-up, this far along.
    case stopped(after: Duration)
    /// Time runs by itself: nothing moved.
    case running
  }

  /// `advance(by:)`, stopping between two wake-ups once the real time `deadline` has passed:
  /// `:advance 1000` over a timer of a millisecond would otherwise wake it a million times
  /// before the REPL reads its next line.
  ///
  /// ```swift
  /// let outcome = await clock.advance(by: .seconds(1000), stoppingAt: .now + .seconds(10))
  /// ```
  public func advance(
    by duration: Duration, stoppingAt deadline: ContinuousClock.Instant?
  ) async -> Advance {
    guard let start = lock.withLock({ paused ? base : nil }) else { return .running }
    let target = start + duration
    await SingleThreadExecutor.letWorkRun()
    while let sleeper = takeSleeper(dueBy: target, setting: true) {
      sleeper.notes?()
      sleeper.continuation.resume()
      await SingleThreadExecutor.letWorkRun()
      if let deadline, ContinuousClock.now > deadline {
        return .stopped(after: lock.withLock { base } - start)
      }
    }
    lock.withLock { if paused, base < target { base = target } }
    return .done
  }

  /// The earliest sleeper due by `target` (first registered among equals), and the observer of
  /// sleeps of zero when it is one (`noteSleepsDueNow`); with `setting`, the paused time is set
  /// to its deadline.
  private func takeSleeper(
    dueBy target: Duration, setting: Bool
  ) -> (continuation: CheckedContinuation<Void, any Error>, notes: (@Sendable () -> Void)?)? {
    lock.withLock {
      guard let sleeper = sleepers.takeEarliest(dueBy: target) else { return nil }
      if setting, paused, base < sleeper.deadline { base = sleeper.deadline }
      let ofZero = sleepsOfZero.remove(sleeper.id) != nil
      return (sleeper.continuation, ofZero ? sleepDueNow : nil)
    }
  }

  /// Under `lock`: the task that wakes sleepers in real time, started again (none while
  /// paused or with nobody asleep).
  private func restartDriver() {
    driver?.cancel()
    driver = nil
    guard !paused, !sleepers.isEmpty else { return }
    driver = Task { [weak self] in await self?.drive() }
  }

  private func drive() async {
    while !Task.isCancelled {
      let wait = lock.withLock { () -> Duration? in
        guard !paused, let earliest = sleepers.earliestDeadline else { return nil }
        return earliest - current()
      }
      guard let wait else { return }
      if wait > .zero {
        do { try await ContinuousClock().sleep(for: wait) } catch { return }
      }
      let now = lock.withLock { current() }
      while let sleeper = takeSleeper(dueBy: now, setting: false) {
        sleeper.notes?()
        sleeper.continuation.resume()
      }
    }
  }

  private func wake(_ id: Int, throwing error: any Error) {
    lock.withLock { () -> ClockSleepers<Duration>.Sleeper? in
      sleepsOfZero.remove(id)
      return sleepers.take(id: id)
    }?.continuation.resume(throwing: error)
  }
}
