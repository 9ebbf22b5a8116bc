import Clocks
import Composable
import ComposableLua
import LuaKit
import Testing

/// A Swift parent hosts a navigation stack and a presentation whose children are Lua features
/// next to Swift ones: each Lua screen keeps its own state, runs its own effects (cancelled when
/// it leaves), and dismisses itself with `composable.dismiss`, as under a Lua parent.
@Suite struct SwiftStackOfLuaScreensTests {
  static let screenSource = """
    local composable = require("composable")
    local effect = composable.effect
    return {
      initial_state = function() return { count = 0 } end,
      reduce = function(state, action)
        if action.type == "increment" or action.type == "tick" then
          state.count = state.count + 1
        elseif action.type == "start" then
          return effect.cancellable(effect.every(1, "tick"), "timer")
        elseif action.type == "stop" then
          return effect.cancel("timer")
        elseif action.type == "close" then
          return composable.dismiss
        elseif action.type == "dismiss" then
          error("a screen never receives its own dismiss")
        end
      end,
    }
    """

  /// A screen is a Lua feature (its state a `LuaValue`) or a Swift one.
  enum Screen: Equatable, Sendable {
    case lua(LuaValue)
    case swift(Int)
  }

  enum ScreenAction: Equatable, Sendable {
    case lua(LuaValue)
    case swift
  }

  struct App: Equatable, Sendable {
    var path = StackState<Screen>()
    @Presents var sheet: LuaValue?
  }

  enum AppAction: Equatable, Sendable {
    case path(StackAction<Screen, ScreenAction>)
    case sheet(PresentationAction<LuaValue>)
    case presentSheet
  }

  static func store(clock: TestClock<Duration>) throws -> TestStore<App, AppAction> {
    // One Lua feature runs every Lua screen: each screen's state is written into it before
    // that screen's action (see `LuaFeatureReducer<LuaValue>`).
    let screens = try LuaFeature(source: screenSource, file: "screen.lua")
    let sheet = try LuaFeature(source: screenSource, file: "sheet.lua")
    return TestStore(
      initialState: App(),
      reducer: { dependencies in
        Reduce<App, AppAction> { state, action in
          if action == .presentSheet { state.sheet = ["count": 0] }
          return .none
        }
          .forEach(
            \.path,
            action: ActionCase(
              embed: AppAction.path, extract: { if case let .path(a) = $0 { a } else { nil } })
          ) {
            CombineReducers(
              CaseScope(
                state: StateCase(
                  embed: Screen.lua, extract: { if case let .lua(s) = $0 { s } else { nil } }),
                action: ActionCase(
                  embed: ScreenAction.lua,
                  extract: { if case let .lua(a) = $0 { a } else { nil } })
              ) { LuaFeatureReducer<LuaValue>(feature: screens, dependencies: dependencies) },
              CaseScope(
                state: StateCase(
                  embed: Screen.swift, extract: { if case let .swift(n) = $0 { n } else { nil } }),
                action: ActionCase(
                  embed: { ScreenAction.swift }, extract: { $0 == .swift ? () : nil })
              ) { Reduce<Int, Void> { count, _ in count += 1; return .none } })
          }
          .ifLet(
            \.$sheet,
            action: ActionCase(
              embed: AppAction.sheet, extract: { if case let .sheet(a) = $0 { a } else { nil } })
          ) { LuaFeatureReducer<LuaValue>(feature: sheet, dependencies: dependencies) }
      },
      dependencies: { $0.clock = clock })
  }

  @Test func luaScreensKeepTheirOwnStateBesideSwiftOnes() async throws {
    let store = try Self.store(clock: TestClock())
    await store.send(.path(.push(.lua(["count": 0])))) { $0.path.append(.lua(["count": 0])) }
    await store.send(.path(.push(.swift(0)))) { $0.path.append(.swift(0)) }
    await store.send(.path(.push(.lua(["count": 10])))) { $0.path.append(.lua(["count": 10])) }
    await store.send(.path(.element(id: 2, action: .lua("increment")))) {
      $0.path[id: 2] = .lua(["count": 11])
    }
    await store.send(.path(.element(id: 0, action: .lua("increment")))) {
      $0.path[id: 0] = .lua(["count": 1])
    }
    await store.send(.path(.element(id: 1, action: .swift))) { $0.path[id: 1] = .swift(1) }
    await store.send(.path(.element(id: 2, action: .lua("increment")))) {
      $0.path[id: 2] = .lua(["count": 12])
    }
  }

  @Test func aLuaScreenDismissesItselfAndThoseAboveIt() async throws {
    let store = try Self.store(clock: TestClock())
    await store.send(.path(.push(.lua(["count": 0])))) { $0.path.append(.lua(["count": 0])) }
    await store.send(.path(.push(.lua(["count": 0])))) { $0.path.append(.lua(["count": 0])) }
    await store.send(.path(.push(.swift(0)))) { $0.path.append(.swift(0)) }
    await store.send(.path(.element(id: 1, action: .lua("close"))))
    // The screen's `dismiss` pops it and the screen above, as a Swift screen's `.dismiss`
    // does; it never reaches the screen.
    await store.receive(.path(.popFrom(id: 1))) {
      $0.path.removeLast()
      $0.path.removeLast()
    }
  }

  @Test func aPoppedLuaScreensTimerStops() async throws {
    let clock = TestClock()
    let store = try Self.store(clock: clock)
    await store.send(.path(.push(.lua(["count": 0])))) { $0.path.append(.lua(["count": 0])) }
    await store.send(.path(.element(id: 0, action: .lua("start"))))
    await clock.advance(by: .seconds(1))
    await store.receive(.path(.element(id: 0, action: .lua("tick")))) {
      $0.path[id: 0] = .lua(["count": 1])
    }
    await store.send(.path(.popFrom(id: 0))) { $0.path.removeAll() }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func eachLuaScreensCancelIDsAreItsOwn() async throws {
    let clock = TestClock()
    let store = try Self.store(clock: clock)
    await store.send(.path(.push(.lua(["count": 0])))) { $0.path.append(.lua(["count": 0])) }
    await store.send(.path(.push(.lua(["count": 0])))) { $0.path.append(.lua(["count": 0])) }
    await store.send(.path(.element(id: 0, action: .lua("start"))))
    await store.send(.path(.element(id: 1, action: .lua("start"))))
    await store.send(.path(.element(id: 1, action: .lua("stop"))))
    await clock.advance(by: .seconds(1))
    await store.receive(.path(.element(id: 0, action: .lua("tick")))) {
      $0.path[id: 0] = .lua(["count": 1])
    }
    await store.send(.path(.element(id: 0, action: .lua("stop"))))
    await clock.advance(by: .seconds(2))
    await store.finish()
  }

  @Test func aPresentedLuaSheetClosesItselfAndItsTimerStops() async throws {
    let clock = TestClock()
    let store = try Self.store(clock: clock)
    await store.send(.presentSheet) { $0.sheet = ["count": 0] }
    await store.send(.sheet(.presented("start")))
    await clock.advance(by: .seconds(1))
    await store.receive(.sheet(.presented("tick"))) { $0.sheet = ["count": 1] }
    await store.send(.sheet(.presented("close")))
    await store.receive(.sheet(.dismiss)) { $0.sheet = nil }
    await clock.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func aLuaScreensRefusalChangesNothing() async throws {
    let store = try Self.store(clock: TestClock())
    await store.send(.path(.push(.lua(["count": 0])))) { $0.path.append(.lua(["count": 0])) }
    await store.send(.path(.element(id: 0, action: .lua("increment")))) {
      $0.path[id: 0] = .lua(["count": 1])
    }
    await withKnownIssue {
      await store.send(.path(.element(id: 0, action: .lua(["type": 5]))))
    } matching: { issue in
      "\(issue)".contains("expected an action")
    }
    await store.send(.path(.element(id: 0, action: .lua("increment")))) {
      $0.path[id: 0] = .lua(["count": 2])
    }
  }
}
