import Foundation

/// Runs every job of a test on one thread of its own, in the order they were enqueued.
///
/// Why: on the global executor each `await` of a test may hop threads, and waking a sleeping
/// worker costs a futex round trip; a TestStore's send, with its store actor and the effects
/// it starts, makes dozens of such hops. On one thread a hop is a queue append. It also makes
/// "everything that can run has run" knowable: the queue is empty (see `settle()`), so tests
/// wait for exactly that instead of yielding a guessed number of times.
///
/// Work started inside `run(_:)` stays on this thread: the store actor runs on the preferred
/// executor of the task that calls it, and the Store starts effects with the same preference
/// (`SingleThreadExecutor.current`).
public final class SingleThreadExecutor: TaskExecutor, @unchecked Sendable {
  /// The executor the current task's work runs on, inside `run(_:)`.
  @TaskLocal public static var current: SingleThreadExecutor?

  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var nextJob = 0
  private var stopped = false
  private var isWaiting = false

  /// Starts the thread. It holds the executor until `stop()`: stop every executor you start.
  ///
  /// ```swift
  /// let executor = SingleThreadExecutor()
  /// defer { executor.stop() }
  /// let store = TestStore(
  ///   initialState: Feature.State(), reducer: { _ in Feature() },
  ///   dependencies: { $0.effectExecutor = executor })
  /// ```
  public init() {
    let thread = Thread { [self] in loop() }
    thread.name = "composable.test"
    thread.start()
  }

  /// Runs `operation` on this executor's thread, with every task it starts preferring it too.
  public func run<Result: Sendable>(
    _ operation: sending @escaping () async throws -> Result
  ) async rethrows -> Result {
    try await withTaskExecutorPreference(self) {
      try await Self.$current.withValue(self) { try await operation() }
    }
  }

  /// Ends the thread once the jobs queued so far have run.
  public func stop() {
    condition.lock()
    stopped = true
    condition.signal()
    condition.unlock()
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    // Only a thread asleep in `loop` needs waking: a job enqueued from a running job (the
    // common case) is found by the loop when that job returns.
    if isWaiting { condition.signal() }
    condition.unlock()
  }

  /// Whether jobs other than the running one are waiting to run.
  public var hasPendingJobs: Bool {
    condition.lock()
    defer { condition.unlock() }
    return nextJob < jobs.count
  }

  /// Waits until every job that was ready has run, and the jobs those enqueued, and so on:
  /// every effect has reached a suspension it cannot leave on its own (a clock's sleep, an
  /// answer from outside) or has finished. Call it from a task running on this executor.
  public func settle() async {
    while hasPendingJobs { await Task.yield() }
  }

  /// `settle()`, giving up once `limit` of real time has passed: an effect that never suspends
  /// (a loop of sends) would otherwise keep the caller for ever. Returns whether it settled.
  ///
  /// ```swift
  /// let settled = await executor.settle(within: .seconds(1))
  /// ```
  @discardableResult
  public func settle(within limit: Duration) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while hasPendingJobs {
      if ContinuousClock.now > deadline { return false }
      await Task.yield()
    }
    return true
  }

  private func loop() {
    let executor = asUnownedTaskExecutor()
    while true {
      condition.lock()
      while nextJob == jobs.count, !stopped {
        isWaiting = true
        condition.wait()
        isWaiting = false
      }
      if nextJob == jobs.count {
        condition.unlock()
        return
      }
      let job = jobs[nextJob]
      nextJob += 1
      if nextJob == jobs.count {
        jobs.removeAll(keepingCapacity: true)
        nextJob = 0
      }
      condition.unlock()
      job.runSynchronously(on: executor)
    }
  }
}

extension SingleThreadExecutor {
  /// Lets work just started run as far as it can: settles the current single-thread executor,
  /// or, on the global executor (where that cannot be known), yields `yields` times.
  public static func letWorkRun(orYield yields: Int = 20) async {
    if let current {
      await current.settle()
    } else {
      for _ in 0..<yields { await Task.yield() }
    }
  }
}
