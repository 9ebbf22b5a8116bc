import Clocks
import Composable
import Testing

/// A navigation stack in Swift: push and pop by id, each screen run by its kind's reducer,
/// its effects cancelled when it leaves, its own dismissal, and clear issues.
@Suite struct StackTests {
  func store(clock: any Clock<Duration> = ImmediateClock()) -> TestStore<
    Navigator.State, Navigator.Action
  > {
    TestStore(initialState: Navigator.State(), reducer: Navigator(clock: clock))
  }

  @Test func screensArePushedRunAndPoppedByID() async {
    let store = store()
    await store.send(.path(.push(.counter(Screen.State())))) {
      $0.path.append(.counter(Screen.State()))
      $0.log = ["push"]
    }
    await store.send(.path(.push(.timer(Screen.State())))) {
      $0.path.append(.timer(Screen.State()))
      $0.log.append("push")
    }
    await store.send(.path(.element(id: 1, action: .timer(.increment)))) {
      $0.path[id: 1] = .timer(Screen.State(count: 1))
    }
    await store.send(.path(.element(id: 0, action: .counter(.increment)))) {
      $0.path[id: 0] = .counter(Screen.State(count: 1))
    }
    // The parent sees the pop with the screen still there; then the screen and those above go.
    await store.send(.path(.popFrom(id: 0))) {
      $0.log.append("pop #0 of 2")
      $0.path.removeAll()
    }
  }

  @Test func idsAreNeverUsedTwice() async {
    var stack = StackState<String>(["a", "b"])
    #expect(stack.ids == [0, 1])
    stack.removeLast()
    #expect(stack.append("c") == 2)
    stack.removeAll()
    #expect(stack.append("d") == 3)
    let poppedTo = stack.pop(to: 3)
    let poppedFrom = stack.pop(from: 0)
    #expect(poppedTo && !poppedFrom)
    stack[id: 3] = nil
    #expect(stack.isEmpty)
    // Equal stacks hold the same screens under the same ids.
    #expect(StackState(["x"]) == StackState(["x"]))
    var other = StackState<String>()
    other.append("y")
    other.removeLast()
    other.append("x")
    #expect(other != StackState(["x"]))
  }

  @Test func aPoppedScreensEffectsAreCancelled() async {
    let clock = TestClock()
    let store = store(clock: clock)
    await store.send(.path(.push(.timer(Screen.State())))) {
      $0.path.append(.timer(Screen.State()))
      $0.log = ["push"]
    }
    await store.send(.path(.element(id: 0, action: .timer(.start))))
    await clock.advance(by: .seconds(1))
    await store.receive(.path(.element(id: 0, action: .timer(.tick)))) {
      $0.path[id: 0] = .timer(Screen.State(count: 1))
    }
    await store.send(.path(.popFrom(id: 0))) {
      $0.log.append("pop #0 of 1")
      $0.path.removeAll()
    }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func aParentThatEmptiesTheStackCancelsEveryScreensEffects() async {
    let clock = TestClock()
    let store = store(clock: clock)
    await store.send(.path(.push(.timer(Screen.State())))) {
      $0.path.append(.timer(Screen.State()))
      $0.log = ["push"]
    }
    await store.send(.path(.element(id: 0, action: .timer(.start))))
    await store.send(.popAllAndPush) {
      $0.path.removeAll()
      $0.path.append(.counter(Screen.State()))
    }
    await clock.advance(by: .seconds(3))
    await store.finish()
  }

  @Test func aScreenDismissesItselfAndThoseAboveIt() async {
    let clock = TestClock()
    let store = store(clock: clock)
    store.exhaustivity = .off
    await store.send(.path(.push(.counter(Screen.State()))))
    await store.send(.path(.push(.timer(Screen.State()))))
    await store.send(.path(.push(.counter(Screen.State()))))
    store.exhaustivity = .on
    await store.send(.path(.element(id: 1, action: .timer(.close))))
    await store.receive(.path(.popFrom(id: 1))) {
      $0.log.append("pop #1 of 3")
      $0.path.removeLast()
      $0.path.removeLast()
    }
    // From async work: `send.dismiss()`.
    await store.send(.path(.element(id: 0, action: .counter(.closeLater))))
    await clock.advance(by: .seconds(1))
    await store.receive(.path(.popFrom(id: 0))) {
      $0.log.append("pop #0 of 1")
      $0.path.removeAll()
    }
  }

  @Test func eachScreensCancelIDsAreItsOwn() async {
    let clock = TestClock()
    let store = store(clock: clock)
    store.exhaustivity = .off
    await store.send(.path(.push(.timer(Screen.State()))))
    await store.send(.path(.push(.timer(Screen.State()))))
    store.exhaustivity = .on
    await store.send(.path(.element(id: 0, action: .timer(.startTimer))))
    await store.send(.path(.element(id: 1, action: .timer(.startTimer))))
    // Screen 1 stops "timer": its own, not screen 0's.
    await store.send(.path(.element(id: 1, action: .timer(.stopTimer))))
    await clock.advance(by: .seconds(1))
    await store.receive(.path(.element(id: 0, action: .timer(.tick)))) {
      $0.path[id: 0] = .timer(Screen.State(count: 1))
    }
    await store.send(.path(.element(id: 0, action: .timer(.stopTimer))))
    await clock.advance(by: .seconds(3))
    await store.finish()
  }

  @Test func aScreenThatClosesItselfAndIsPoppedByItsParentIsGoneOnce() async {
    let store = store()
    store.exhaustivity = .off
    await store.send(.path(.push(.counter(Screen.State()))))
    store.exhaustivity = .on
    // The parent pops it in the action it closed itself with: its dismissal goes with it.
    await store.send(.path(.element(id: 0, action: .counter(.closeAndPop)))) {
      $0.path.removeAll()
    }
    await store.finish()
  }

  @Test func anActionForAScreenNotOnTheStackIsReported() async {
    let store = store()
    await withKnownIssue {
      await store.send(.path(.element(id: 7, action: .counter(.increment))))
    } matching: { issue in
      message(of: issue).hasPrefix(
        """
        A stack ("forEach") at "ComposableTests/NavigationFeature.swift:
        """)
        && message(of: issue).contains(
          """
          received an action for a screen that is not on the stack.

              Screen id: #7
              Action: counter(ComposableTests.Screen.Action.increment)
              Screens on the stack: none

          This usually means the action was sent after the screen was popped, for instance by \
          an effect that was not cancelled. To fix, send a screen's actions only while it is \
          on the stack.
          """)
    }
  }

  @Test func aPopOfAScreenNotOnTheStackIsReported() async {
    let store = store()
    await withKnownIssue {
      await store.send(.path(.popFrom(id: 3))) { $0.log = ["pop #3 of 0"] }
    } matching: { issue in
      message(of: issue).contains("received popFrom for a screen that is not on the stack.")
        && message(of: issue).contains("Screen id: #3")
    }
  }

  @Test func anActionForAnotherKindOfScreenIsReported() async {
    let store = store()
    await store.send(.path(.push(.counter(Screen.State())))) {
      $0.path.append(.counter(Screen.State()))
      $0.log = ["push"]
    }
    await withKnownIssue {
      await store.send(.path(.element(id: 0, action: .timer(.increment))))
    } matching: { issue in
      message(of: issue).contains(
        "received a child action when the state was another case.")
    }
  }

  @Test func aFailingTestShowsEachScreenUnderItsID() async {
    let store = store()
    await withKnownIssue {
      await store.send(.path(.push(.counter(Screen.State())))) {
        $0.path.append(.timer(Screen.State()))
        $0.log = ["push"]
      }
    } matching: { issue in
      let text = message(of: issue)
      return text.contains("#0: .timer(") && text.contains("#0: .counter(")
    }
  }

  @Test func aDismissNobodyPresentsIsReported() async {
    let store = TestStore(
      initialState: Screen.State(), reducer: Screen(clock: ImmediateClock()))
    await withKnownIssue {
      await store.send(.close)
    } matching: { issue in
      message(of: issue).hasPrefix("A feature asked to be dismissed, but nothing presents it.")
    }
  }
}
