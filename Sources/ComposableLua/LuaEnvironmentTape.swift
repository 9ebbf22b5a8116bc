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
/// from lists of their own (`play(_:effects:)`) and each is handed to `noteEffectDraws`'s
/// observer as it is drawn.
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
  /// What is left to play to effects, by function name.
  private var toPlayToEffects: [String: ArraySlice<LuaValue>] = [:]
  private var playing = false
  /// Told of each answer an effect gets (a REPL session keeps them for `:test`).
  private var effectDrawn: (@Sendable (Draw) -> Void)?

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
  public convenience init(
    playing answers: [String: [LuaValue]], effects: [String: [LuaValue]] = [:]
  ) {
    self.init()
    toPlay = answers.mapValues { $0[...] }
    toPlayToEffects = effects.mapValues { $0[...] }
    playing = true
  }

  /// Hands each answer an effect's coroutine gets from now on to `observer` (on the thread
  /// that drew it, while the feature is busy: it must not call into the feature).
  ///
  /// ```swift
  /// tape.noteEffectDraws { draw in log.append(draw) }
  /// ```
  public func noteEffectDraws(_ observer: @escaping @Sendable (Draw) -> Void) {
    lock.withLock { effectDrawn = observer }
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
        playing = false
      }
      return toPlay.values.reduce(0) { $0 + $1.count }
        + toPlayToEffects.values.reduce(0) { $0 + $1.count }
    }
  }

  /// The answer to a reducer's (or, `byEffect`, an effect's) call of `env.NAME()`: the next
  /// draw played back, or `draw()` (recorded: a reducer's on the tape, an effect's handed to
  /// the observer). A draw played back comes from a file or a test: `refusal` says why it is
  /// no answer the call could have had (a table for `env.now()`), or nil.
  func answer(
    _ name: String, byEffect: Bool = false, refusal: (LuaValue) -> String?,
    draw: () throws -> LuaValue
  ) throws -> LuaValue {
    let played = lock.withLock { () -> LuaValue? in
      guard playing else { return nil }
      if byEffect {
        guard let next = toPlayToEffects[name]?.first else { return nil }
        toPlayToEffects[name] = toPlayToEffects[name]?.dropFirst()
        return next
      }
      guard let next = toPlay[name]?.first else { return nil }
      toPlay[name] = toPlay[name]?.dropFirst()
      return next
    }
    if let played {
      if let refusal = refusal(played) {
        throw LuaError.runtime(
          message: "env.\(name)() was answered \(played.description(limit: 60)) by the "
            + "answers played back (a session's draws, or a TestStore's answers), but \(refusal). "
            + "To fix, correct that answer",
          traceback: "")
      }
      note(Draw(name: name, value: played), byEffect: byEffect)
      return played
    }
    let value = try draw()
    note(Draw(name: name, value: value), byEffect: byEffect)
    return value
  }

  private func note(_ draw: Draw, byEffect: Bool) {
    guard byEffect else { return lock.withLock { recorded.append(draw) } }
    lock.withLock { effectDrawn }?(draw)
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
