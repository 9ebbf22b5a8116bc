import Composable
import Foundation
import LuaKit

/// What `env.uuid()`, `env.now()` and `env.random()` answered reducers: kept while a session
/// is recorded, and given back while it is replayed, so that a replayed `add` makes the todo
/// with the id it had, and the recorded actions that name that id still find it.
///
/// Reducers' calls go on the tape, action by action (`takeRecorded`). An effect's coroutine
/// draws too; a replay runs no effect (their results come back as the actions they sent, which
/// are recorded), but a test written from a session runs them: their answers are played back
/// from lists of their own, and each is handed to `noteEffectDraws`'s observer as it is drawn,
/// with the number of the action that started the effect. The tape numbers its store's actions
/// as they are reduced (`beginAction`), so that a test plays each effect the answers of the
/// effect of the same action in the session, whatever effects a jump or a cancellation left
/// out on either side. Received actions a test skips are not counted (`uncount`).
///
/// A store gets a tape through its dependencies (`DependencyValues.environmentTape`); without
/// one, `env` answers straight from the dependencies, at the cost of one lookup.
public final class LuaEnvironmentTape: @unchecked Sendable {
  /// One answer: the function's name (`uuid`, `now`, `random`) and what it returned.
  public struct Draw: Hashable, Sendable {
    /// The function's name: `uuid`, `now` or `random`.
    public let name: String
    /// What the function returned.
    public let value: LuaValue

    /// The answer `value` that the function `name` gave.
    ///
    /// ```swift
    /// let tape = LuaEnvironmentTape()
    /// tape.play([LuaEnvironmentTape.Draw(name: "now", value: 1_700_000_000)])
    /// ```
    public init(name: String, value: LuaValue) {
      self.name = name
      self.value = value
    }

    /// Whether `value` is of the kind `name`'s function answers at all: a string for `uuid`
    /// (any bytes), a finite number for `now`, a number for `random` (whose range depends on
    /// the call). False for any other name.
    public var isOfItsFunctionsKind: Bool {
      switch (name, value) {
      case ("uuid", .string), ("now", .integer), ("random", .integer), ("random", .number):
        true
      case let ("now", .number(seconds)): seconds.isFinite
      default: false
      }
    }
  }

  // Sendable by construction: everything below is only reached under `lock`.
  private let lock = NSLock()
  private var recorded: [Draw] = []
  /// What is left to play to reducers, by function name.
  private var toPlay: [String: ArraySlice<LuaValue>] = [:]
  /// What is left to play to any effect, by function name.
  private var toPlayToEffects: [String: ArraySlice<LuaValue>] = [:]
  /// What is left to play to the effects of action N, by N, then by function name: played
  /// before `toPlayToEffects`.
  private var toPlayToEffectsOf: [Int: [String: ArraySlice<LuaValue>]] = [:]
  private var playing = false
  /// Told of each answer an effect gets (a REPL session keeps them for `:test`).
  private var effectDrawn: (@Sendable (Draw, _ startedBy: Int?) -> Void)?
  /// The number the next action reduced gets.
  private var nextAction = 1

  /// Who drew an answer.
  enum Drawer {
    /// A reducer.
    case reducer
    /// An effect's coroutine, started by the action numbered `startedBy` (nil: not known).
    case effect(startedBy: Int?)
  }

  /// An empty tape that records what reducers draw; it plays nothing back until `play(_:)`.
  ///
  /// ```swift
  /// let tape = LuaEnvironmentTape()
  /// var dependencies = DependencyValues.live
  /// dependencies.environmentTape = tape
  /// // ... send actions to a store built with `dependencies`, then:
  /// let draws = tape.takeRecorded()
  /// ```
  public init() {}

  /// A tape that plays `answers` back to reducers and `effects` to effects' coroutines, each
  /// function's in order, from the start: for a test that gives the answers a recorded session
  /// got.
  ///
  /// ```swift
  /// let tape = LuaEnvironmentTape(
  ///   playing: ["now": [1_700_000_000], "random": [4, 2]],
  ///   effects: ["uuid": ["C2CCFF41-26B0-434E-BA83-F4189DEE9CC2"]])
  /// ```
  ///
  /// `effectsOfActions` plays to the effects of one action: under N, what the effects started
  /// by the Nth action the store reduces draw (counted from 1, sent and received alike), before
  /// anything in `effects`.
  public convenience init(
    playing answers: [String: [LuaValue]], effects: [String: [LuaValue]] = [:],
    effectsOfActions: [Int: [String: [LuaValue]]] = [:]
  ) {
    self.init()
    toPlay = answers.mapValues { $0[...] }
    toPlayToEffects = effects.mapValues { $0[...] }
    toPlayToEffectsOf = effectsOfActions.mapValues { $0.mapValues { $0[...] } }
    playing = true
  }

  /// Hands each answer an effect's coroutine gets from now on to `observer`, with the number of
  /// the action that started the effect (`beginAction`). It is called on the thread that drew,
  /// while the feature is busy: it must not call into the feature.
  ///
  /// ```swift
  /// tape.noteEffectDraws { draw, action in log.append((draw, action)) }
  /// ```
  public func noteEffectDraws(_ observer: @escaping @Sendable (Draw, _ startedBy: Int?) -> Void) {
    lock.withLock { effectDrawn = observer }
  }

  /// The number of the action about to be reduced, the next one's after it: each store with a
  /// tape counts its actions from 1, and an effect's answers are kept and played under the
  /// number of the action that started it.
  func beginAction() -> Int {
    lock.withLock {
      defer { nextAction += 1 }
      return nextAction
    }
  }

  /// Takes `count` actions reduced back off the count: received actions a test skipped, which
  /// are no step of the session the test was written from (`TestStore.skipReceivedActions`).
  public func uncount(_ count: Int) {
    lock.withLock { nextAction = max(1, nextAction - count) }
  }

  /// Numbers the next action reduced `number` (and counts on from there): a session whose
  /// actions are numbered by its timeline says which each is, whatever a jump replayed.
  ///
  /// ```swift
  /// tape.numberNextAction(timeline.position + 1)
  /// ```
  public func numberNextAction(_ number: Int) {
    lock.withLock { nextAction = number }
  }

  /// The answers recorded since the last call, in order; the tape starts afresh.
  public func takeRecorded() -> [Draw] {
    lock.withLock {
      defer { recorded = [] }
      return recorded
    }
  }

  /// Gives `draws` back to reducers' calls and `effects` to effects' calls until
  /// `stopPlaying`: each call of `env.NAME()` gets the next of NAME's draws, in order. A call
  /// with none left (code that now draws more) is answered by the dependencies. Every answer
  /// is recorded.
  public func play(_ draws: [Draw], effects: [Draw] = []) {
    lock.withLock {
      toPlay = [:]
      for draw in draws { toPlay[draw.name, default: []].append(draw.value) }
      toPlayToEffects = [:]
      for draw in effects { toPlayToEffects[draw.name, default: []].append(draw.value) }
      toPlayToEffectsOf = [:]
      playing = true
      recorded = []
    }
  }

  /// Ends a playback; how many of its draws were not asked for.
  @discardableResult
  public func stopPlaying() -> Int {
    lock.withLock {
      defer {
        toPlay = [:]
        toPlayToEffects = [:]
        toPlayToEffectsOf = [:]
        playing = false
      }
      return toPlay.values.reduce(0) { $0 + $1.count }
        + toPlayToEffects.values.reduce(0) { $0 + $1.count }
        + toPlayToEffectsOf.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.count } }
    }
  }

  /// The answer to a reducer's or an effect's call of `env.NAME()`: the next draw played back,
  /// or `draw()` (recorded: a reducer's on the tape, an effect's handed to the observer). A
  /// draw played back comes from a file or a test: `refusal` says why it is no answer the call
  /// could have had (a table for `env.now()`), or nil.
  func answer(
    _ name: String, by drawer: Drawer, refusal: (LuaValue) -> String?,
    draw: () throws -> LuaValue
  ) throws -> LuaValue {
    let played = lock.withLock { () -> LuaValue? in
      guard playing else { return nil }
      switch drawer {
      case .reducer:
        guard let next = toPlay[name]?.first else { return nil }
        toPlay[name] = toPlay[name]?.dropFirst()
        return next
      case let .effect(action):
        if let action, let next = toPlayToEffectsOf[action]?[name]?.first {
          toPlayToEffectsOf[action]?[name]?.removeFirst()
          return next
        }
        guard let next = toPlayToEffects[name]?.first else { return nil }
        toPlayToEffects[name] = toPlayToEffects[name]?.dropFirst()
        return next
      }
    }
    if let played {
      if let refusal = refusal(played) {
        throw LuaError.runtime(
          message: "env.\(name)() was answered \(played.description(limit: 60)) by the "
            + "answers played back (a session's draws, or a TestStore's answers), but \(refusal). "
            + "To fix, correct that answer",
          traceback: "")
      }
      note(Draw(name: name, value: played), by: drawer)
      return played
    }
    let value = try draw()
    note(Draw(name: name, value: value), by: drawer)
    return value
  }

  private func note(_ draw: Draw, by drawer: Drawer) {
    switch drawer {
    case .reducer: lock.withLock { recorded.append(draw) }
    case let .effect(action): lock.withLock { effectDrawn }?(draw, action)
    }
  }
}

extension LuaEnvironmentTape: DependencyKey {
  /// No tape: an app records nothing unless it sets one.
  public static var liveValue: LuaEnvironmentTape? { nil }
  /// No tape in tests either, unless the test sets one.
  public static var testValue: LuaEnvironmentTape? { nil }
}

extension DependencyValues {
  /// Where reducers' `env.uuid()`, `env.now()` and `env.random()` answers are recorded and
  /// played back (a REPL's session); nil, the default, for none.
  public var environmentTape: LuaEnvironmentTape? {
    get { self[LuaEnvironmentTape.self] }
    set { self[LuaEnvironmentTape.self] = newValue }
  }
}
