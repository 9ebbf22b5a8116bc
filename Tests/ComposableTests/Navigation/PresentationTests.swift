import Clocks
import Composable
import Testing

/// A presented destination in Swift: a sheet run by its reducer that dismisses itself, its
/// effects ended when it closes or is replaced, and alerts that close after their button.
@Suite struct PresentationTests {
  func store(clock: any Clock<Duration> = ImmediateClock()) -> TestStore<
    Navigator.State, Navigator.Action
  > {
    TestStore(initialState: Navigator.State(), reducer: Navigator(clock: clock))
  }

  @Test func aSheetRunsItsReducerAndClosesWhenDismissed() async {
    let store = store()
    await store.send(.presentSheet(id: 1)) { $0.destination = .sheet(Screen.State(id: 1)) }
    await store.send(.destination(.presented(.sheet(.increment)))) {
      $0.destination = .sheet(Screen.State(id: 1, count: 1))
    }
    await store.send(.destination(.dismiss)) {
      $0.log = ["dismiss"]
      $0.destination = nil
    }
  }

  @Test func aSheetDismissesItselfAndItsEffectsEnd() async {
    let clock = TestClock()
    let store = store(clock: clock)
    await store.send(.presentSheet(id: 1)) { $0.destination = .sheet(Screen.State(id: 1)) }
    await store.send(.destination(.presented(.sheet(.start))))
    await clock.advance(by: .seconds(1))
    await store.receive(.destination(.presented(.sheet(.tick)))) {
      $0.destination = .sheet(Screen.State(id: 1, count: 1))
    }
    await store.send(.destination(.presented(.sheet(.close))))
    await store.receive(.destination(.dismiss)) {
      $0.log = ["dismiss"]
      $0.destination = nil
    }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func aSheetReplacedByAnotherEndsTheFirstOnesEffects() async {
    let clock = TestClock()
    let store = store(clock: clock)
    await store.send(.presentSheet(id: 1)) { $0.destination = .sheet(Screen.State(id: 1)) }
    await store.send(.destination(.presented(.sheet(.start))))
    // Another sheet (another id) in its place: the first one's timer stops.
    await store.send(.presentSheet(id: 2)) { $0.destination = .sheet(Screen.State(id: 2)) }
    await clock.advance(by: .seconds(3))
    await store.finish()
  }

  @Test func anAlertClosesAfterItsButtonsAction() async {
    let store = store()
    await store.send(.presentAlert) { $0.destination = .alert(Navigator.deleteAlert) }
    await store.send(.destination(.presented(.alert(.confirm)))) {
      $0.log = ["confirmed"]
      $0.destination = nil
    }
  }

  @Test func whatTheParentPresentsInTheAlertsPlaceStays() async {
    let store = store()
    await store.send(.presentAlert) { $0.destination = .alert(Navigator.deleteAlert) }
    await store.send(.destination(.presented(.alert(.confirmAndPresentSheet)))) {
      $0.log = ["confirmed"]
      $0.destination = .sheet(Screen.State(id: 9))
    }
  }

  @Test func aDismissalDoesNotCloseWhatReplacedTheChildThatAsked() async {
    let store = store()
    await store.send(.presentSheet(id: 1)) { $0.destination = .sheet(Screen.State(id: 1)) }
    // The sheet closes itself; the parent, in that same action, presents another in its place.
    await store.send(.destination(.presented(.sheet(.closeAndReplace)))) {
      $0.destination = .sheet(Screen.State(id: 9))
    }
    await store.finish()  // the first sheet's dismissal went with it: nothing arrives
  }

  @Test func anAlertPresentedFromAnAlertsButtonStays() async {
    let store = store()
    await store.send(.presentAlert) { $0.destination = .alert(Navigator.deleteAlert) }
    await store.send(.destination(.presented(.alert(.confirmAndAlert)))) {
      $0.destination = .alert(AlertState(title: "Could not delete"))
    }
    // Equal alerts are equal, whichever was presented.
    #expect(AlertState<Destination.Alert>(title: "x") == AlertState(title: "x"))
  }

  @Test func aFailingTestShowsWhatAnAlertSaysNotItsNumber() async {
    let store = store()
    await withKnownIssue {
      await store.send(.presentAlert) { $0.destination = .alert(AlertState(title: "Delete?")) }
    } matching: { issue in
      let text = message(of: issue)
      return text.contains("AlertState(") && text.contains("title: \"Delete?\"")
        && !text.contains("presentationID")
    }
  }

  @Test func anAlertsButtonWithNoActionDismisses() async {
    #expect(Navigator.deleteAlert.buttons[2].action == nil)
    #expect(AlertState<Destination.Alert>(title: "Saved").buttons == [
      ButtonState(label: "OK", role: .cancel)
    ])
    let store = store()
    await store.send(.presentAlert) { $0.destination = .alert(Navigator.deleteAlert) }
    await store.send(.destination(.dismiss)) {
      $0.log = ["dismiss"]
      $0.destination = nil
    }
  }

  @Test func anActionWhenNothingIsPresentedIsReported() async {
    let store = store()
    await withKnownIssue {
      await store.send(.destination(.presented(.sheet(.increment))))
    } matching: { issue in
      message(of: issue).contains(
        """
        received an action for its child when nothing was presented.

            Action: sheet(ComposableTests.Screen.Action.increment)

        This usually means the action was sent after the child was dismissed, for instance by \
        an effect that was not cancelled. To fix, send a child's actions only while it is \
        presented.
        """)
    }
  }

  @Test func aFailingTestShowsThePresentedValueNotTheWrapper() async {
    let store = store()
    await withKnownIssue {
      await store.send(.presentSheet(id: 1)) { $0.destination = .sheet(Screen.State(id: 2)) }
    } matching: { issue in
      let text = message(of: issue)
      return text.contains("destination: .sheet(") && !text.contains("Presents")
    }
  }
}
