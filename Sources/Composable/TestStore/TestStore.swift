import CustomDump
import Foundation
import IssueReporting

/// Drives a feature in a test, and checks everything it does.
///
/// Exhaustive by default, as in The Composable Architecture: every state change must be
/// asserted (`send(action) { $0.count = 1 }`, where `$0` is the state before the action),
/// every action an effect sends must be received (`receive`), and every effect must have
/// finished by the end of the test. Failures are reported at the line of the call that found
/// them, with a diff of expected (−) against actual (+).
///
/// The TestStore runs the feature on a real `Store`: the same code reduces actions and runs
/// effects in tests as in the app.
public final class TestStore<State: Equatable & Sendable, Action: Sendable> {
  /// The store under test.
  public let store: Store<State, Action>
  /// The state as the test has asserted it so far.
  public private(set) var state: State
  /// How long `receive` and `finish` wait for effects.
  public var timeout: Duration = .seconds(1)
  /// How much the checks insist on: `.on` (the default) wants everything asserted; `.off`
  /// checks only what the test asserts.
  public var exhaustivity: Exhaustivity = .on
  /// How the "To fix" hints name the TestStore's methods: Swift's by default.
  public var hints: TestStoreHints = .swift
  /// The dependencies the reducer was built with.
  public let dependencies: DependencyValues
  /// What `receive(_:)` makes of the action it is given before comparing it with the actions
  /// effects sent: itself, unless actions have a shorthand (a Lua feature's TestStore turns
  /// `"loaded"` into `{ type = "loaded" }`, as `send` does).
  public var expandExpectedAction: (Action) -> Action = { $0 }
  /// Told how many received actions `skipReceivedActions` dropped: a store whose dependencies
  /// number the actions it reduces (a Lua feature's `env` tape) stops counting them.
  public var receivedActionsSkipped: (Int) -> Void = { _ in }

  let recorder: TestRecorder<State, Action>
  private var lastLocation: TestSourceLocation
  private var finished = false
  /// The thread the store and its effects run on when the test gave none (no
  /// `effectExecutor`, not inside a `SingleThreadExecutor.run`): each call of the TestStore runs
  /// there, so it waits for exactly the work it started, the same way on every run, without
  /// the test knowing about executors (as TCA's TestStore serializes on one executor).
  let ownedExecutor: SingleThreadExecutor?

  /// A TestStore over the reducer that `reducer` builds from the test dependencies, changed by
  /// `dependencies`. A dependency the test does not provide fails the test when used.
  ///
  /// ```swift
  /// let store = TestStore(
  ///   initialState: Todos.State(),
  ///   reducer: { Todos(uuid: $0.uuid) },
  ///   dependencies: { $0.uuid = .incrementing })
  /// ```
  public convenience init<R: Reducer<State, Action>>(
    initialState: State,
    reducer: (DependencyValues) -> sending R,
    dependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    var values = DependencyValues.test
    dependencies(&values)
    self.init(
      initialState: initialState, built: reducer(values), dependencies: values,
      location: TestSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// A TestStore over a reducer that needs no dependencies.
  ///
  /// ```swift
  /// let store = TestStore(
  ///   initialState: Counter.State(), reducer: Counter(clock: ImmediateClock()))
  /// ```
  public convenience init(
    initialState: State, reducer: sending some Reducer<State, Action>,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    self.init(
      initialState: initialState, built: reducer, dependencies: .test,
      location: TestSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  private init(
    initialState: State, built reducer: sending any Reducer<State, Action>,
    dependencies: DependencyValues, location: TestSourceLocation
  ) {
    let recorder = TestRecorder<State, Action>(location: location)
    self.recorder = recorder
    self.dependencies = dependencies
    self.state = initialState
    self.lastLocation = location
    let given = dependencies.effectExecutor ?? SingleThreadExecutor.current
    let owned = given == nil ? SingleThreadExecutor() : nil
    self.ownedExecutor = owned
    // A ManualClock advanced by the test settles this thread after each wake-up.
    if let owned, let clock = dependencies.clock as? ManualClock { clock.settles(on: owned) }
    self.store = Store(
      initialState: initialState, reducer: reducer,
      instrumentation: StoreInstrumentation(
        didReduce: { recorder.didReduce($0, fromEffect: $1, state: $2) },
        effectStarted: { recorder.effectStarted($0, $1) },
        effectFinished: { recorder.effectFinished($0) }),
      // A test on its own executor runs its effects there unless its dependencies say
      // otherwise; without one, on the TestStore's.
      effectExecutor: given ?? owned)
  }

  deinit {
    checkAtEnd()
    let store = self.store
    let owned = ownedExecutor
    Task {
      await store.cancelAllEffects()
      owned?.stop()
    }
  }

  /// Runs `body` on the TestStore's own thread, if it has one and the caller is not on a
  /// single-thread executor already.
  private nonisolated(nonsending) func onTestThread<Result>(
    _ body: @escaping () async -> Result
  ) async -> Result {
    guard let executor = ownedExecutor, SingleThreadExecutor.current == nil else {
      return await body()
    }
    let work = UncheckedSendable(body)
    return await executor.run { UncheckedSendable(await work.value()) }.value
  }

  /// What the TestStore checks when it goes away, done now: no received action left
  /// unasserted, no effect still running (after a moment's grace for effects finishing).
  /// For hosts that run tests themselves, such as the Lua test runner.
  ///
  /// On a `SingleThreadExecutor`, settle it first (`letWorkRun()`): waiting here would block
  /// the very thread the effects need.
  public func checkAtEnd() {
    guard !finished else { return }
    finished = true
    // An effect that just sent its last action may not have marked itself finished yet: give
    // such effects a moment. One that is really still running (asleep on a clock, say) is
    // still running after it, and is reported.
    if SingleThreadExecutor.current == nil, exhaustivity == .on, !recorder.inFlight.isEmpty {
      recorder.waitForNoEffectsInFlight(until: Date().addingTimeInterval(0.2))
    }
    checkNothingLeft(at: lastLocation)
  }

  // MARK: Sending

  /// Sends `action` and checks the state it leads to: `assert` changes the state before the
  /// action into the state expected after it. Without `assert`, the state must not change.
  ///
  /// ```swift
  /// await store.send(.incrementButtonTapped) { $0.count = 1 }
  /// await store.send(.refreshButtonTapped)  // the state must not change
  /// ```
  @discardableResult
  public nonisolated(nonsending) func send(
    _ action: Action,
    assert updateExpectedState: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> TestStoreTask {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    return await onTestThread {
      await self.send(action, assert: updateExpectedState, at: location)
    }
  }

  private nonisolated(nonsending) func send(
    _ action: Action, assert updateExpectedState: ((inout State) throws -> Void)?,
    at location: TestSourceLocation
  ) async -> TestStoreTask {
    lastLocation = location
    let unhandled = recorder.removeReceived(recorder.received.count)
    if !unhandled.isEmpty {
      if exhaustivity == .on {
        report(
          """
          Must handle \(count(unhandled.count, "received action")) before sending an action.

          Unhandled actions:
          \(list(unhandled.map(\.action)))

          To fix, assert \(unhandled.count == 1 ? "it" : "them") with "\(hints.receive)" before \
          this send, or skip \(unhandled.count == 1 ? "it" : "them") with \
          "\(hints.skipReceivedActions)".
          """, at: location)
      }
      skip(unhandled, at: location, showing: "received action")
    }
    recorder.setLocation(location)
    let store = self.store
    let task = await TestCallSite.$current.withValue(TestCallSite(location)) {
      await store.send(action)
    }
    await Self.letEffectsStart()
    guard let actual = recorder.takeStateAfterSend() else {
      report("The store did not reduce \(describe(action)).", at: location)
      return TestStoreTask(task: task)
    }
    expectState(actual, updateExpectedState, at: location)
    return TestStoreTask(task: task)
  }

  /// Waits a little for effects: yields at first (most answers are microseconds away), then
  /// sleeps a millisecond at a time, so a long wait does not spin.
  static func pause(_ waits: inout Int) async {
    waits += 1
    if waits < 200 {
      await Task.yield()
    } else {
      try? await Task.sleep(for: .milliseconds(1))
    }
  }

  /// Gives the effects just started a chance to reach their first suspension (a clock's
  /// sleep, say) before the test goes on to advance that clock, and those that just sent
  /// their last action a chance to finish.
  static func letEffectsStart() async {
    await SingleThreadExecutor.letWorkRun()
  }

  // MARK: Receiving

  /// Waits for the next action an effect sends, checks it is `expected`, and checks the state
  /// it leads to. With exhaustivity off, received actions before it are skipped.
  ///
  /// ```swift
  /// await store.send(.numberFactButtonTapped)
  /// await store.receive(.numberFactResponse("0 is a round number")) {
  ///   $0.numberFact = "0 is a round number"
  /// }
  /// ```
  public nonisolated(nonsending) func receive(
    _ expected: Action,
    timeout: Duration? = nil,
    assert updateExpectedState: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async where Action: Equatable {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    // Shown expanded (`"sort"` as the action it stands for); matched as written, so that a
    // shorthand anywhere in it (a Lua child's bare type in a Swift parent's case) reads as one.
    let written = expected
    let expected = expandExpectedAction(expected)
    await onTestThread {
      await self.receive(
        matching: { $0 == expected || ExpectedAction.matches(written, $0) }, expected: expected,
        timeout: timeout, updateExpectedState: updateExpectedState, location: location)
    }
  }

  /// Waits for the next action an effect sends and checks it with `isMatch`.
  /// `expecting` is what a failure shows as expected beside the action that came (say, an
  /// action of the type the predicate looks for).
  ///
  /// ```swift
  /// await store.receive(where: { if case .searchResponse = $0 { true } else { false } }) {
  ///   $0.isSearching = false
  /// }
  /// ```
  public nonisolated(nonsending) func receive(
    where isMatch: @escaping (Action) -> Bool,
    expecting expected: Action? = nil,
    timeout: Duration? = nil,
    assert updateExpectedState: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    await onTestThread {
      await self.receive(
        matching: isMatch, expected: expected, timeout: timeout,
        updateExpectedState: updateExpectedState, location: location)
    }
  }

  private nonisolated(nonsending) func receive(
    matching isMatch: (Action) -> Bool, expected: Action?, timeout: Duration?,
    updateExpectedState: ((inout State) throws -> Void)?, location: TestSourceLocation
  ) async {
    lastLocation = location
    recorder.setLocation(location)
    let timeout = timeout ?? self.timeout
    let start = ContinuousClock.now
    var waits = 0
    var settled = false
    while true {
      let received = recorder.received
      if exhaustivity == .on, let first = received.first {
        _ = recorder.removeReceived(1)
        if !isMatch(first.action) {
          let difference = expected.flatMap { Notation.difference($0, first.action) }
          report(
            difference.map {
              """
              Received unexpected action.

              \($0)

              (Expected: −, Received: +)
              """
            } ?? "Received unexpected action: \(describe(first.action))", at: location)
        }
        expectState(first.state, updateExpectedState, at: location)
        await Self.letEffectsStart()
        return
      }
      if let index = received.firstIndex(where: { isMatch($0.action) }) {
        let taken = recorder.removeReceived(index + 1)
        skip(Array(taken.dropLast()), at: location, showing: "received action")
        expectState(taken.last!.state, updateExpectedState, at: location)
        await Self.letEffectsStart()
        return
      }
      if waitsOnTestClockOnly {
        // Everything that could run has run: no action comes until the test moves the clock.
        if settled {
          report("\(nothingMatched(received, expected: expected)) \(testClockNote)", at: location)
          return
        }
        await SingleThreadExecutor.letWorkRun()
        settled = true
        continue
      }
      if ContinuousClock.now - start >= timeout {
        let waited = "after \(seconds(timeout)) seconds"
        report(nothingMatched(received, expected: expected, waited: waited), at: location)
        return
      }
      await Self.pause(&waits)
    }
  }

  /// Why a `receive` found nothing: no action came, or (exhaustivity off) the ones that came do
  /// not match.
  private func nothingMatched(
    _ received: [TestRecorder<State, Action>.Received], expected: Action?, waited: String? = nil
  ) -> String {
    guard !received.isEmpty else {
      return "Expected to receive an action, but received none"
        + (waited.map { " " + $0 } ?? "") + "."
    }
    let wanted = expected.map { " matching " + describe($0) } ?? ""
    return "Expected to receive an action\(wanted), but none of the "
      + "\(count(received.count, "action")) received matches"
      + (waited.map { " (" + $0 + ")" } ?? "") + ":\n" + list(received.map(\.action))
  }

  // MARK: Finishing

  /// Waits for every effect to finish, then checks that no received action was left unhandled.
  ///
  /// ```swift
  /// await store.send(.startButtonTapped)
  /// await clock.advance(by: .seconds(3))
  /// await store.finish()
  /// ```
  public nonisolated(nonsending) func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    await onTestThread { await self.finish(timeout: timeout, at: location) }
  }

  private nonisolated(nonsending) func finish(
    timeout: Duration?, at location: TestSourceLocation
  ) async {
    lastLocation = location
    let timeout = timeout ?? self.timeout
    let start = ContinuousClock.now
    var waits = 0
    while !recorder.inFlight.isEmpty {
      if waitsOnTestClockOnly {
        // Settled: what still runs waits for the test clock, which only the test moves.
        await SingleThreadExecutor.letWorkRun()
        let running = recorder.inFlight
        if !running.isEmpty, exhaustivity == .on {
          report(
            """
            Expected effects to finish, but \(count(running.count, "effect")) still \
            \(running.count == 1 ? "runs" : "run"):
            \(running.map { "  • " + describeEffect($0) }.joined(separator: "\n"))
            \(testClockNote)

            To fix, advance the clock (\(hints.advance)), cancel \(running.count == 1 ? "it" : "them") \
            from the feature, or skip \(running.count == 1 ? "it" : "them") with \
            "\(hints.skipInFlightEffects)".
            """, at: location)
          // Reported here, not again at the end of the test.
          recorder.forgetInFlight()
        }
        break
      }
      if ContinuousClock.now - start >= timeout {
        if exhaustivity == .on {
          report(
            """
            Expected effects to finish, but there are still effects in-flight after \
            \(seconds(timeout)) seconds.
            """, at: location)
        }
        break
      }
      await Self.pause(&waits)
    }
    checkNothingLeft(at: location)
    finished = true
  }

  /// Drops the received actions not yet asserted, taking the state the last one led to.
  public nonisolated(nonsending) func skipReceivedActions(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    await onTestThread {
      await SingleThreadExecutor.letWorkRun(orYield: 1)
      let skipped = self.recorder.removeReceived(self.recorder.received.count)
      self.skip(skipped, at: location, showing: "received action", always: true)
      if let last = skipped.last { self.state = last.state }
      if !skipped.isEmpty { self.receivedActionsSkipped(skipped.count) }
    }
  }

  /// The effects still running, in the order they started, once the work that can run has
  /// run: what `finish()` would find in flight (saves included, `isStateSave`), numbered from 1.
  public nonisolated(nonsending) func effectsInFlight() async -> [RunningEffectSummary] {
    await onTestThread {
      await SingleThreadExecutor.letWorkRun()
      return self.recorder.inFlight.enumerated().map { index, effect in
        RunningEffectSummary(number: index + 1, kind: effect.info.kind, ids: effect.info.ids)
      }
    }
  }

  /// Cancels the effects still running, so the test need not wait for them.
  public nonisolated(nonsending) func skipInFlightEffects(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let location = TestSourceLocation(
      fileID: fileID, filePath: filePath, line: line, column: column)
    await onTestThread {
      let running = self.recorder.inFlight.count
      if running > 0, case .off(showSkippedAssertions: true) = self.exhaustivity {
        self.report(
          "Skipped \(count(running, "in-flight effect")).", at: location, severity: .warning)
      }
      await self.store.cancelAllEffects()
      self.recorder.forgetInFlight()
    }
  }

  // MARK: Checking

  private func expectState(
    _ actual: State, _ updateExpectedState: ((inout State) throws -> Void)?,
    at location: TestSourceLocation
  ) {
    let previous = state
    defer { state = actual }
    var expected = previous
    do {
      try updateExpectedState?(&expected)
    } catch {
      report("Threw an error while updating the expected state: \(error)", at: location)
      return
    }
    switch exhaustivity {
    case .on:
      guard expected != actual else { return }
      let difference = Notation.difference(expected, actual) ?? ""
      if updateExpectedState == nil {
        report(
          """
          State was not expected to change, but a change occurred.

          \(difference)

          (Expected: −, Actual: +)
          """, at: location)
      } else {
        report(
          """
          A state change does not match expectation.

          \(difference)

          (Expected: −, Actual: +)
          """, at: location)
      }
    case let .off(showSkipped):
      // Only what the test changed is checked: applied to the actual state, it must change
      // nothing.
      var checked = actual
      try? updateExpectedState?(&checked)
      if checked != actual {
        report(
          """
          A state change does not match expectation.

          \(Notation.difference(checked, actual) ?? "")

          (Expected: −, Actual: +)
          """, at: location)
      } else if showSkipped, expected != actual {
        report(
          """
          A state change was not asserted (skipped).

          \(Notation.difference(expected, actual) ?? "")

          (Expected: −, Actual: +)
          """, at: location, severity: .warning)
      }
    }
  }

  /// Reports received actions and effects left over at the end of a test.
  private func checkNothingLeft(at location: TestSourceLocation) {
    let unhandled = recorder.removeReceived(recorder.received.count)
    if !unhandled.isEmpty {
      if exhaustivity == .on {
        report(
          """
          The store received \(count(unhandled.count, "unexpected action")).

          Unhandled actions:
          \(list(unhandled.map(\.action)))

          To fix, assert \(unhandled.count == 1 ? "it" : "them") with "\(hints.receive)", skip \
          \(unhandled.count == 1 ? "it" : "them") with "\(hints.skipReceivedActions)", or \
          turn exhaustivity off with "\(hints.exhaustivityOff)".
          """, at: location)
      } else {
        skip(unhandled, at: location, showing: "received action")
      }
    }
    for effect in recorder.inFlight {
      let effectLocation = effect.location
      let what =
        effect.info.kind == nil && effect.info.ids.isEmpty
        ? "" : " (\(describeEffect(effect, line: false)))"
      if exhaustivity == .on {
        report(
          """
          An effect returned for this action is still running\(what). It must complete before \
          the end of the test.

          To fix, wait for it to finish (\(hints.finish)), cancel it from the feature, or skip \
          it with "\(hints.skipInFlightEffects)".
          """, at: effectLocation)
      } else if case .off(showSkippedAssertions: true) = exhaustivity {
        report(
          "An effect was still running at the end of the test (skipped)\(what).",
          at: effectLocation, severity: .warning)
      }
    }
  }

  private func skip(
    _ skipped: [TestRecorder<State, Action>.Received], at location: TestSourceLocation,
    showing noun: String, always: Bool = false
  ) {
    guard !skipped.isEmpty else { return }
    if case .off(showSkippedAssertions: true) = exhaustivity {
      report(
        "Skipped \(count(skipped.count, noun)):\n\(list(skipped.map(\.action)))",
        at: location, severity: .warning)
    }
    if let last = skipped.last { state = last.state }
  }

  func report(_ message: String, at location: TestSourceLocation, severity: IssueSeverity = .error)
  {
    reportIssue(
      message, severity: severity, fileID: location.fileID, filePath: location.filePath,
      line: location.line, column: location.column)
  }
}

private func describe<Value>(_ value: Value) -> String { Notation.describe(value) }

private func list<Value>(_ values: [Value]) -> String {
  values.map { "  • " + describe($0).replacingOccurrences(of: "\n", with: "\n    ") }
    .joined(separator: "\n")
}

private func count(_ number: Int, _ noun: String) -> String {
  "\(number) \(noun)\(number == 1 ? "" : "s")"
}

/// A value handed to the TestStore's own thread and back: the TestStore is used by one test at
/// a time, each call awaited before the next, so what crosses is never used on two threads.
private struct UncheckedSendable<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
