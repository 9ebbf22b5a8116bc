import Composable
import Foundation
import LuaKit

/// The dependencies one reducer runs a feature with, as one reference: handed to each call
/// into the feature (a retain, not a copy of every client).
public final class LuaFeatureDependencies: Sendable {
  /// The values `env` answers from and the feature's effects run with.
  public let values: DependencyValues
  /// `values.environmentTape`, looked up once: each action of a store with a tape is numbered
  /// on it (`LuaEnvironmentTape.beginAction`).
  let tape: LuaEnvironmentTape?
  /// Wraps `values`, to be handed to each call into a feature.
  ///
  /// ```swift
  /// let context = LuaStepContext(dependencies: LuaFeatureDependencies(.live))
  /// ```
  public init(_ values: DependencyValues) {
    self.values = values
    tape = values.environmentTape
  }
}

/// The deterministic dependencies a reducer reaches through `env`: `env.uuid()`, `env.now()`
/// and `env.random([m [, n]])` (as `math.random`, but seeded).
///
/// They answer from the dependencies of the call in flight: a reducer's call, and each resume
/// of its effects' coroutines, first says whose dependencies it runs with (`answer(from:)`),
/// so two stores over one feature cannot use each other's. A call that gives none (a host that
/// reduces directly) gets `defaults`: the live ones, or what `use` set.
final class LuaFeatureEnvironment: @unchecked Sendable {
  private let lock = NSLock()
  private var defaults = DependencyValues.live  // under `lock`
  /// Set and read only under the feature's lock, by the call that holds it (the host functions
  /// run inside that call, on its thread). Left set after the call: the next call sets its own.
  /// Both are set once per action: the feature's lock already makes access exclusive, so the
  /// runtime's check (a measurable part of a small action) is skipped.
  @exclusivity(unchecked) private var calling: LuaFeatureDependencies?
  /// Whose call is in flight: a reducer's answers go on the tape action by action, an effect's
  /// to the tape's observer; any other call's (`initial_state`, a migration) on neither.
  @exclusivity(unchecked) private var caller = Caller.other

  /// Who draws from `env`: what the tape does with the answer depends on it.
  enum Caller: Equatable {
    /// A reducer's call (an action's step).
    case reducer
    /// A resume or a close of an effect's coroutine, started by the action its store's tape
    /// numbered `origin` (nil: the store has no tape).
    case effect(origin: Int?)
    /// Any other call into the feature (`initial_state`, a migration, `is_duplicate`).
    case other
  }

  /// Called at the start of each call into the VM, under the feature's lock. The same
  /// dependencies as the last call (one store sending action after action) cost one compare.
  /// `endCall()` ends it, so that a later call that gives none is not taken for this one's.
  @inline(__always)
  func answer(from dependencies: LuaFeatureDependencies?, for caller: Caller) {
    if calling !== dependencies { calling = dependencies }
    self.caller = caller
    callIsInspection = false
  }

  /// Called at the end of a call that `answer(from:for:)` began, under the feature's lock.
  @inline(__always)
  func endCall() { caller = .other }

  /// Called before an expression that looks into the feature (the REPL's `= ...`): `now`
  /// answers, but `uuid` and `random` refuse, since a draw would change what the next action
  /// gets (an incrementing generator skips an id, a seeded one moves on).
  func answerForInspection() {
    callIsInspection = true
  }

  /// Whether the call in flight only looks into the feature (`answerForInspection`).
  @exclusivity(unchecked) private var callIsInspection = false

  /// The dependencies a call that gives none runs with, as a step's context holds them.
  func defaultDependencies() -> LuaFeatureDependencies {
    LuaFeatureDependencies(lock.withLock { defaults })
  }

  func use(_ dependencies: DependencyValues) {
    lock.withLock { defaults = dependencies }
  }

  private var current: DependencyValues {
    if let calling { return calling.values }
    return lock.withLock { defaults }
  }

  /// The `env` table: the host's values, then the functions (a host value of the same name
  /// wins, so a test can replace one).
  func table(with values: LuaValue, in vm: LuaVM) -> LuaValue {
    var table = values.tableValue ?? LuaTable()
    let functions: [(String, LuaVM.HostFunction)] = [
      (
        "uuid",
        { [unowned self] _ in
          try self.refuseDrawWhileInspecting("uuid")
          return [
            try self.answer("uuid", refusal: Self.uuidRefusal) {
              .string(LuaString($0.uuid().uuidString))
            }
          ]
        }
      ),
      (
        "now",
        { [unowned self] _ in
          [try self.answer("now", refusal: Self.nowRefusal) { Self.seconds($0.date.now) }]
        }
      ),
      (
        "random",
        { [unowned self] arguments in
          try self.refuseDrawWhileInspecting("random")
          let bounds = try Self.randomBounds(arguments)
          return [
            try self.answer("random", refusal: { Self.randomRefusal($0, bounds) }) {
              guard let bounds else { return .number($0.random.unit()) }
              return .integer($0.random.integer(in: bounds))
            }
          ]
        }
      ),
    ]
    for (name, body) in functions where table[name] == .nil {
      table[name] = .function(vm.function(named: "env." + name, body))
    }
    return .table(table)
  }

  private func refuseDrawWhileInspecting(_ name: String) throws {
    guard callIsInspection else { return }
    throw LuaError.runtime(
      message: "env.\(name)() draws from the store's generator, so here it would change what "
        + "the next action gets. To see what it gives, send an action that calls it",
      traceback: "")
  }

  /// What `draw` gives from the dependencies of the call in flight; a reducer's or an effect's
  /// call goes through their tape, when they have one (a session being recorded or replayed, a
  /// test given answers).
  private func answer(
    _ name: String, refusal: (LuaValue) -> String?, draw: (DependencyValues) throws -> LuaValue
  ) throws -> LuaValue {
    let current = self.current
    let byEffect: LuaEnvironmentTape.Drawer
    switch caller {
    case .other: return try draw(current)
    case .reducer: byEffect = .reducer
    case let .effect(origin): byEffect = .effect(startedBy: origin)
    }
    guard let tape = calling?.tape ?? current.environmentTape else { return try draw(current) }
    return try tape.answer(name, by: byEffect, refusal: refusal) { try draw(current) }
  }

  // What a played-back answer must be: what the function itself could have answered.

  static func uuidRefusal(_ answer: LuaValue) -> String? {
    LuaEnvironmentTape.Draw(name: "uuid", value: answer).isOfItsFunctionsKind
      ? nil : "env.uuid() answers a string"
  }

  static func nowRefusal(_ answer: LuaValue) -> String? {
    LuaEnvironmentTape.Draw(name: "now", value: answer).isOfItsFunctionsKind
      ? nil : "env.now() answers a finite number of seconds"
  }

  static func randomRefusal(_ answer: LuaValue, _ bounds: ClosedRange<Int>?) -> String? {
    guard let bounds else {
      guard case let .number(unit) = answer, unit >= 0, unit < 1 else {
        return "env.random() answers a float from 0 up to 1"
      }
      return nil
    }
    guard case let .integer(value) = answer, bounds.contains(value) else {
      return "this call answers an integer from \(bounds.lowerBound) to \(bounds.upperBound)"
    }
    return nil
  }

  /// The range `env.random(...)` draws an integer from; nil with no arguments (a float from 0
  /// up to 1). Raises Lua's errors for arguments `math.random` refuses.
  static func randomBounds(_ arguments: [LuaValue]) throws -> ClosedRange<Int>? {
    func fail(_ message: String) -> LuaError { .runtime(message: message, traceback: "") }
    // Each bound as `luaL_checkinteger` takes it: an integer, or a float with an integer's value.
    func bound(_ position: Int) throws -> Int {
      let value = arguments[position - 1]
      switch value {
      case let .integer(integer):
        return integer
      case let .number(number):
        guard let integer = Int(exactly: number) else {
          throw fail(
            "bad argument #\(position) to 'env.random' (number has no integer "
              + "representation)")
        }
        return integer
      default:
        throw fail(
          "bad argument #\(position) to 'env.random' (number expected, got "
            + "\(value.typeName == "nil" ? "no value" : value.typeName))")
      }
    }
    switch arguments.count {
    case 0:
      return nil
    case 1:
      let high = try bound(1)
      if high == 0 { return Int.min...Int.max }  // `math.random(0)`: any integer
      guard 1 <= high else { throw fail("bad argument #1 to 'env.random' (interval is empty)") }
      return 1...high
    case 2:
      let (low, high) = (try bound(1), try bound(2))
      guard low <= high else { throw fail("bad argument #1 to 'env.random' (interval is empty)") }
      return low...high
    default:
      throw fail("wrong number of arguments to 'env.random'")
    }
  }
}

extension LuaFeatureEnvironment {
  /// `env.now()`: seconds since 1970, an integer when whole (a test's `now = 1700000000`
  /// reads back as it was written, `math.type` and all), a float otherwise.
  static func seconds(_ date: Date) -> LuaValue {
    let seconds = date.timeIntervalSince1970
    if seconds.rounded() == seconds, let whole = Int(exactly: seconds) { return .integer(whole) }
    return .number(seconds)
  }
}

extension LuaFeature {
  /// The names of the functions the host puts in `env`.
  static let environmentFunctions = ["uuid", "now", "random"]

  /// Throws when `env` holds a value that is not a function under the name of one of the
  /// host's `env` functions: it would hide the function (`--env uuid=x` made every
  /// `env.uuid()` "attempt to call a string value"). A function there is a host's own
  /// answer, as a test may give.
  static func checkHostsNames(in env: LuaValue, file: String) throws(LuaFeatureError) {
    for name in environmentFunctions {
      let value = env[LuaValue.string(LuaString(name))]
      if value == .nil { continue }
      if case .function = value { continue }
      throw .load(
        file: file,
        message: "env.\(name) is given a value (\(value.typeName)), where the host's "
          + "env.\(name)() goes. To fix, give the value another name (--uuid and --seed set "
          + "what env.uuid() and env.random() answer)")
    }
  }
}
