import Clocks
import Composable
import Testing

/// Every failure the TestStore reports, pinned verbatim.
@Suite struct TestStoreFailureTests {
  func makeStore(clock: any Clock<Duration> = ImmediateClock()) -> TestStore<Counter.State, Counter.Action> {
    TestStore(initialState: Counter.State(), reducer: Counter(clock: clock))
  }

  @Test func aWrongStateExpectationShowsADiff() async {
    let store = makeStore()
    await withKnownIssue {
      await store.send(.increment) { $0.count = 2 }
    } matching: { issue in
      message(of: issue) == """
        A state change does not match expectation.

        \(same) Counter.State(
        −   count: 2,
        +   count: 1,
        \(same)   isTimerOn: false
        \(same) )

        (Expected: −, Actual: +)
        """
    }
  }

  @Test func anUnassertedChangeIsReported() async {
    let store = makeStore()
    await withKnownIssue {
      await store.send(.decrement)
    } matching: { issue in
      message(of: issue) == """
        State was not expected to change, but a change occurred.

        \(same) Counter.State(
        −   count: 0,
        +   count: -1,
        \(same)   isTimerOn: false
        \(same) )

        (Expected: −, Actual: +)
        """
    }
  }

  @Test func anUnexpectedReceivedActionIsReportedAtTheEnd() async {
    await withKnownIssue {
      let store = makeStore()
      await store.send(.addTwice)
      _ = store
    } matching: { issue in
      message(of: issue) == """
        The store received 2 unexpected actions.

        Unhandled actions:
          • Counter.Action.increment
          • Counter.Action.increment

        To fix, assert them with "store.receive", skip them with \
        "await store.skipReceivedActions()", or turn exhaustivity off with \
        "store.exhaustivity = .off".
        """
    }
  }

  @Test func oneUnexpectedActionReadsInTheSingular() async {
    let clock = TestClock()
    await withKnownIssue {
      let store = makeStore(clock: clock)
      await store.send(.incrementLater)
      await clock.advance(by: .seconds(1))
      await store.finish()
    } matching: { issue in
      message(of: issue).hasPrefix("""
        The store received 1 unexpected action.

        Unhandled actions:
          • Counter.Action.incremented

        To fix, assert it with "store.receive"
        """)
    }
  }

  @Test func sendingBeforeHandlingReceivedActionsIsReported() async {
    let store = makeStore()
    await store.send(.addTwice)
    await withKnownIssue {
      await store.send(.increment) { $0.count = 3 }
    } matching: { issue in
      message(of: issue).hasPrefix("""
        Must handle 2 received actions before sending an action.

        Unhandled actions:
          • Counter.Action.increment
          • Counter.Action.increment
        """)
    }
  }

  @Test func anEffectStillRunningAtTheEndIsReportedAtItsSend() async {
    let clock = TestClock()
    await withKnownIssue {
      let store = makeStore(clock: clock)
      await store.send(.incrementLater)
      _ = store
    } matching: { issue in
      message(of: issue) == """
        An effect returned for this action is still running (.after). It must complete before \
        the end of the test.

        To fix, wait for it to finish ("await store.finish()" or "await task.finish()"), cancel \
        it from the feature, or skip it with "await store.skipInFlightEffects()".
        """
        && issue.sourceLocation?.line == 108
    }
  }

  @Test func receivingNothingTimesOut() async {
    let store = makeStore()
    store.timeout = .milliseconds(50)
    await withKnownIssue {
      await store.receive(.incremented)
    } matching: { issue in
      message(of: issue) == "Expected to receive an action, but received none after 0.05 seconds."
    }
    let slow = makeStore()
    await withKnownIssue {
      await slow.receive(.incremented, timeout: .seconds(1))
    } matching: { issue in
      message(of: issue) == "Expected to receive an action, but received none after 1.0 seconds."
    }
  }

  @Test func receivingTheWrongActionShowsADiff() async {
    let store = makeStore()
    await store.send(.addTwice)
    await withKnownIssue {
      await store.receive(.decrement) { $0.count = 1 }
    } matching: { issue in
      message(of: issue) == """
        Received unexpected action.

        − Counter.Action.decrement
        + Counter.Action.increment

        (Expected: −, Received: +)
        """
    }
    await store.receive(.increment) { $0.count = 2 }
  }

  @Test func finishingWithEffectsStillRunningTimesOut() async {
    let clock = TestClock()
    let store = makeStore(clock: clock)
    await store.send(.incrementLater)
    await withKnownIssue {
      await store.finish(timeout: .milliseconds(50))
    } matching: { issue in
      message(of: issue).hasPrefix(
        "Expected effects to finish, but there are still effects in-flight after 0.05 seconds.")
        || message(of: issue).hasPrefix(
          "An effect returned for this action is still running (.after).")
    }
    await store.skipInFlightEffects()
  }

  @Test func failuresPointAtTheCallingLine() async {
    let store = makeStore()
    await withKnownIssue {
      await store.send(.increment) { $0.count = 5 }  // line 174
    } matching: { issue in
      issue.sourceLocation?.line == 174 && issue.sourceLocation?.fileName == "TestStoreFailureTests.swift"
    }
  }

  /// Actions whose own `description` prints two cases alike: the case received is told from
  /// the one expected by its name, not by how it prints.
  enum Alike: Equatable, Sendable, CustomStringConvertible {
    case start, first, second
    var description: String { "an action" }
  }

  @Test func casesThatPrintAlikeAreToldApart() async {
    let store = TestStore(
      initialState: 0,
      reducer: Reduce<Int, Alike> { _, action in
        action == .start ? .send(.second) : .none
      })
    await store.send(.start)
    await withKnownIssue {
      await store.receive(.first)
    } matching: { issue in
      message(of: issue).hasPrefix("Received unexpected action.")
    }
    await store.send(.start)
    await store.receive(.second)
  }
}
