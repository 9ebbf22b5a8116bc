import Foundation

/// What a TestStore sees of its store, shared with the store's instrumentation. Behind a lock
/// so that the TestStore can read it synchronously, even from its deinit. (A pthread lock, not
/// the standard library's `Mutex`: ThreadSanitizer does not see the futex calls that one is
/// made of, and reports every use as a race.)
final class TestRecorder<State: Sendable, Action: Sendable>: @unchecked Sendable {
  struct Received: Sendable {
    let action: Action
    let state: State
  }

  /// An effect still running: what it is, and where the test was when it started.
  struct InFlightEffect: Sendable {
    let info: RunningEffectInfo
    let location: TestSourceLocation
  }

  private struct Contents: Sendable {
    var received: [Received] = []
    var stateAfterSend: State?
    var inFlight: [Int: InFlightEffect] = [:]
    var location: TestSourceLocation
  }

  private let contents: LockedContents

  init(location: TestSourceLocation) {
    contents = LockedContents(Contents(location: location))
  }

  /// `Contents` behind a condition (a pthread lock, with a wait), with `Mutex`'s `withLock`.
  private final class LockedContents: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Contents
    init(_ value: Contents) { self.value = value }
    func withLock<Result>(_ body: (inout Contents) -> Result) -> Result {
      condition.lock()
      defer {
        condition.broadcast()  // a waiter looks again at every change
        condition.unlock()
      }
      return body(&value)
    }

    /// Waits until `isDone` holds or `deadline` passes; whether it holds.
    func wait(until deadline: Date, for isDone: (Contents) -> Bool) -> Bool {
      condition.lock()
      defer { condition.unlock() }
      while !isDone(value) {
        if !condition.wait(until: deadline) { return isDone(value) }
      }
      return true
    }
  }

  /// The store reduced an action: one the test sent, or one an effect sent.
  func didReduce(_ action: Action, fromEffect: Bool, state: State) {
    contents.withLock {
      if fromEffect {
        $0.received.append(Received(action: action, state: state))
      } else {
        $0.stateAfterSend = state
      }
    }
  }

  func effectStarted(_ token: Int, _ info: RunningEffectInfo) {
    contents.withLock { $0.inFlight[token] = InFlightEffect(info: info, location: $0.location) }
  }

  func effectFinished(_ token: Int) {
    contents.withLock { _ = $0.inFlight.removeValue(forKey: token) }
  }

  /// Where the test is now: effects started from here on are attributed to it.
  func setLocation(_ location: TestSourceLocation) {
    contents.withLock { $0.location = location }
  }

  func takeStateAfterSend() -> State? {
    contents.withLock { contents in
      let state = contents.stateAfterSend
      contents.stateAfterSend = nil
      return state
    }
  }

  var received: [Received] { contents.withLock { $0.received } }

  /// Removes and returns the first `count` received actions.
  func removeReceived(_ count: Int) -> [Received] {
    contents.withLock {
      let taken = Array($0.received.prefix(count))
      $0.received.removeFirst(min(count, $0.received.count))
      return taken
    }
  }

  /// The effects still running, in the order they started.
  var inFlight: [InFlightEffect] {
    contents.withLock { $0.inFlight.sorted { $0.key < $1.key }.map(\.value) }
  }

  /// Waits, without spinning, until no effect is in flight or `deadline` passes.
  func waitForNoEffectsInFlight(until deadline: Date) {
    _ = contents.wait(until: deadline) { $0.inFlight.isEmpty }
  }

  func forgetInFlight() {
    contents.withLock { $0.inFlight.removeAll() }
  }
}
