import Composable
import LuaKit

/// A kind of effect that asks the outside world (the network, the files). Besides its
/// interpretation, its file defines how it is performed (also when an `effect.run` coroutine
/// asks the same thing through its host call), how a session records it, and how a Lua test
/// fakes it: the runner, the recorder and `TestStore.new` go through `LuaEffectKinds.requests`.
protocol LuaEffectRequestKind: LuaEffectKind {
  /// The `op` an `effect.run` coroutine yields to ask this (`http.get(url)` yields
  /// `{ op = "http", request = ... }`), answered with the result table.
  static var hostCall: String { get }

  /// The answer to what a coroutine yielded (`{ ok = true, ... }` or `{ ok = false, error }`,
  /// a request that cannot be made answered `ok = false`); nil when the effect was cancelled.
  static func answer(
    _ yielded: LuaValue, runner: LuaEffectRunner
  ) async -> LuaValue?

  /// The field of `TestStore.new{...}` that fakes it in a Lua test (`http`, `files`).
  static var testField: String { get }

  /// The dependency a Lua test's `TestStore.new{ [testField] = value }` gives the store (nil
  /// when the test gave none: then a use fails the test, saying how to give one).
  static func fake(
    _ value: LuaValue, in session: LuaTestSession, clock: ManualClock,
    into dependencies: inout DependencyValues
  ) throws

  /// `dependencies` whose client for this kind notes every request and its answer in
  /// `recorder`, as a session records them to serve them again in a test written from it.
  static func recording(
    _ dependencies: DependencyValues, into recorder: LuaExchangeRecorder
  ) -> DependencyValues
}

/// Where the clients of `LuaEffectRequestKind.recording` note what they were asked: the kind's
/// name, the request, the answer (or the error, or that the effect was cancelled before it took
/// one), and when each happened.
package struct LuaExchangeRecorder: Sendable {
  /// Seconds on the store's clock.
  package let now: @Sendable () -> Double
  /// The place of a request beginning now among those made (0, 1, ...).
  private let place: @Sendable () -> Int
  package let note:
    @Sendable (
      _ kind: String, _ request: LuaValue, _ answer: LuaValue, _ error: String?,
      _ cancelled: Bool, _ start: Start, _ end: Double
    ) -> Void

  /// When a request began: its place in the order requests were made (a paused clock gives
  /// two the same time), the time, and the number of the action whose effect made it (nil:
  /// not known, a save of the state's, say).
  package struct Start: Sendable {
    package let place: Int
    package let time: Double
    package let origin: Int?
  }

  /// The number of the action whose effect is making requests in this task (the effect
  /// runner's `origin`), for `begin()` to note: a session leaves out of a test the requests of
  /// actions a jump took back.
  @TaskLocal package static var origin: Int?

  package init(
    now: @escaping @Sendable () -> Double, place: @escaping @Sendable () -> Int,
    note: @escaping @Sendable (String, LuaValue, LuaValue, String?, Bool, Start, Double) -> Void
  ) {
    self.now = now
    self.place = place
    self.note = note
  }

  /// Called as a request begins.
  package func begin() -> Start { Start(place: place(), time: now(), origin: Self.origin) }
}
