import Composable
import ComposableLua
import Foundation
import LuaKit

/// What the REPL's store is sent: an action a person typed, one an effect sent back, or a
/// state to go back to (`:undo`).
public enum ReplAction: Sendable {
  case typed(LuaValue)
  case fromEffect(LuaValue)
  case restore(LuaValue)
  /// The state read again from Lua, after something outside an action changed it (a reload's
  /// `migrate`); what changed is printed.
  case refresh
}

/// One action of a session, as `:log` lists it and `:undo` takes it back.
public struct ReplLogEntry: Sendable {
  public let number: Int
  public let action: LuaValue
  public let fromEffect: Bool
  /// The state before the action, and after it (the same when it failed and was rolled back).
  public let before: LuaValue
  public let after: LuaValue
  public let failed: Bool
}

/// The session's record of actions, shared by the store's reducer (which adds to it) and the
/// session's commands (which read it and take from it). Behind a lock: effects' actions are
/// reduced while the person types.
public final class ReplLog: @unchecked Sendable {
  private let lock = NSLock()
  private var entries: [ReplLogEntry] = []
  private var nextNumber = 1
  private var error: LuaFeatureError?

  public var all: [ReplLogEntry] { lock.withLock { entries } }

  func noteError(_ error: LuaFeatureError) { lock.withLock { self.error = error } }

  func takeError() -> LuaFeatureError? {
    lock.withLock {
      defer { error = nil }
      return error
    }
  }

  func append(
    _ action: LuaValue, fromEffect: Bool, before: LuaValue, after: LuaValue, failed: Bool
  ) -> ReplLogEntry {
    lock.withLock {
      let entry = ReplLogEntry(
        number: nextNumber, action: action, fromEffect: fromEffect, before: before, after: after,
        failed: failed)
      nextNumber += 1
      entries.append(entry)
      return entry
    }
  }

  /// Takes the last entry off the log, for `:undo`.
  func removeLast() -> ReplLogEntry? { lock.withLock { entries.popLast() } }
}

/// The feature's reducer as the REPL runs it: each action is logged and printed with the
/// difference it made, in Lua; the actions its effects send back come in marked.
struct ReplReducer: Reducer {
  typealias State = LuaValue
  typealias Action = ReplAction

  let feature: LuaFeature
  let base: LuaFeatureReducer<LuaValue>
  let log: ReplLog
  let printer: ReplPrinter
  let snapshot: StateSnapshot

  func reduce(into state: inout LuaValue, action: ReplAction) -> Effect<ReplAction> {
    let (value, fromEffect): (LuaValue, Bool)
    switch action {
    case let .restore(saved):
      do throws(LuaFeatureError) {
        try feature.setState(saved)
        state = saved
        snapshot.value = saved
      } catch {
        printer.error(error.description)
      }
      return .none
    case .refresh:
      do throws(LuaFeatureError) {
        let now = try feature.state()
        if let difference = LuaValue.notationDifference(
          from: state, to: now, colored: printer.colored)
        {
          printer.line(printer.indented(difference))
        }
        state = now
        snapshot.value = now
      } catch {
        printer.error(error.description)
      }
      return .none
    case let .typed(typed): (value, fromEffect) = (typed, false)
    case let .fromEffect(sent): (value, fromEffect) = (sent, true)
    }
    let before = state
    let effect = base.reduce(into: &state, action: value)
    let error = log.takeError()
    let entry = log.append(
      value, fromEffect: fromEffect, before: before, after: state, failed: error != nil)
    // An action that wrote nothing changed nothing: no comparison of the whole state.
    printer.reduced(entry, error: error, wrote: error == nil && feature.lastActionWrote)
    return effect.map(ReplAction.fromEffect)
  }
}
