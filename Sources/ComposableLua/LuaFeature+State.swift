import Composable
import Foundation
import IssueReporting
import LuaKit

/// The state as Swift sees it: snapshots, decoding, and writes from the host.
extension LuaFeature {
  /// A snapshot of the state.
  public func state() throws(LuaFeatureError) -> LuaValue {
    try queue.access { (vm, loaded) throws(LuaFeatureError) -> LuaValue in
      do throws(LuaError) { return try vm.value(of: stateReference, rootName: "state") } catch {
        throw .conversion(error)
      }
    }
  }

  /// A copy of the state kept in the feature's VM (a copy in C, with no trip through Swift),
  /// read into Swift only when asked for (`LuaStateCopy.value()`): what a host keeps at a point
  /// it may come back to, at a fraction of a snapshot's cost. It counts against the VM's memory
  /// limit while kept, and is freed when the last handle on it goes. So none is made when the VM
  /// already uses a quarter of its limit (the copy could take as much again, and the reducer
  /// would meet the limit sooner than in a run): that throws, and a snapshot serves instead.
  ///
  /// ```swift
  /// let kept = try feature.stateCopy()
  /// _ = try feature.step("increment")
  /// let before = try kept.value()  // the state as it was
  /// ```
  public func stateCopy() throws(LuaFeatureError) -> LuaStateCopy {
    try queue.access { (vm, loaded) throws(LuaFeatureError) -> LuaStateCopy in
      if let limit = vm.limits.memory, vm.memoryInUse > limit / 4 {
        throw .conversion(.memoryLimit(limit: limit))
      }
      do throws(LuaError) {
        return LuaStateCopy(feature: self, reference: try vm.copyData(of: stateReference))
      } catch {
        throw .conversion(error)
      }
    }
  }

  /// Writes the state as a Lua literal, the `description` of `state()`, read table by table:
  /// no snapshot is made, so a large state costs the text, not a copy of itself.
  public func writeState(to output: inout some TextOutputStream) throws(LuaFeatureError) {
    try queue.access { (vm, loaded) throws(LuaFeatureError) in
      do throws(LuaError) {
        try vm.writeDescription(of: stateReference, rootName: "state", to: &output)
      } catch {
        throw .conversion(error)
      }
    }
  }

  /// The state decoded into a Swift type.
  public func decodeState<State: Decodable>(_ type: State.Type) throws(LuaFeatureError) -> State {
    try queue.access { (vm, loaded) throws(LuaFeatureError) -> State in
      do throws(LuaError) {
        return try LuaDecoder().decode(type, from: stateReference, in: vm, rootName: "state")
      } catch {
        throw .conversion(error)
      }
    }
  }

  /// Replaces the whole state with `value`, encoded (for tests that start from a given state).
  public func replaceState<Value: Encodable>(with value: Value) throws(LuaFeatureError) {
    let encoded = try luaValue(of: value, name: "state")
    guard case let .table(table) = encoded else {
      throw .conversion(
        .conversion(path: "state", message: "expected a table, got \(encoded.typeName)"))
    }
    try queue.access { (vm, _) throws(LuaFeatureError) in
      try writeState(.nil, .table(table), in: vm)
    }
  }

  /// Replaces the whole state with `state`, a table (what a Swift parent wrote to its Lua
  /// child's state, say). A feature that persists counts it as a change.
  public func setState(_ state: LuaValue) throws(LuaFeatureError) {
    guard case .table = state else {
      throw .conversion(
        .conversion(path: "state", message: "expected a table, got \(state.typeName)"))
    }
    try queue.access { (vm, loaded) throws(LuaFeatureError) in try writeState(.nil, state, in: vm) }
    saver?.changed()
  }

  /// Forgets which composed children (`for_each` elements, `if_let` and presented children,
  /// stack screens) have effects running: for a host that has cancelled every effect of the
  /// feature, and then sets its state or replays actions into it (time travel). Otherwise the
  /// next action that finds such a child gone returns a cancel for effects that no longer run,
  /// which a run of the same actions does not: a replay of the session then says the action
  /// returns another effect.
  ///
  /// ```swift
  /// try feature.forgetRunningEffects()
  /// ```
  public func forgetRunningEffects() throws(LuaFeatureError) {
    try queue.access { (vm, loaded) throws(LuaFeatureError) in
      do throws(LuaError) { try vm.clearJournalKeptTables() } catch { throw .conversion(error) }
    }
  }

  /// What `forgetRunningEffects` forgets, set aside: `restoreRunningEffects` puts it back.
  public struct RunningEffectsRecord: Sendable {
    let copy: LuaReference
  }

  /// Forgets which composed children have effects running, as `forgetRunningEffects` does, and
  /// returns what it forgot: for a host that replays actions to check them while the feature's
  /// effects run on, and then puts the state and this record back.
  ///
  /// ```swift
  /// let running = try feature.setAsideRunningEffects()
  /// // ... actions replayed from the start, compared ...
  /// try feature.restoreRunningEffects(running)
  /// ```
  public func setAsideRunningEffects() throws(LuaFeatureError) -> RunningEffectsRecord {
    try queue.access { (vm, loaded) throws(LuaFeatureError) -> RunningEffectsRecord in
      do throws(LuaError) {
        let copy = try vm.copyJournalKeptTables()
        try vm.clearJournalKeptTables()
        return RunningEffectsRecord(copy: copy)
      } catch {
        throw .conversion(error)
      }
    }
  }

  /// Puts back what `setAsideRunningEffects` set aside.
  public func restoreRunningEffects(_ record: RunningEffectsRecord) throws(LuaFeatureError) {
    try queue.access { (vm, loaded) throws(LuaFeatureError) in
      do throws(LuaError) { try vm.restoreJournalKeptTables(record.copy) } catch {
        throw .conversion(error)
      }
    }
  }

  /// The host's write to the state, under the lock: `value` into `field`, or, when `field` is
  /// nil, as the whole state (refilled in place, so the reducer's proxy stays bound to it).
  func writeState(_ field: LuaValue, _ value: LuaValue, in vm: LuaVM) throws(LuaFeatureError) {
    do throws(LuaError) {
      try vm.writeState(value, at: field == .nil ? nil : field, through: stateProxy)
    } catch {
      throw .conversion(error)
    }
  }

  /// `value` as Lua sees it: encoded by `LuaEncoder` (an enum becomes the action shape).
  public func luaValue<Value: Encodable>(
    of value: Value, name: String = "action"
  ) throws(LuaFeatureError) -> LuaValue {
    try queue.access { (vm, loaded) throws(LuaFeatureError) -> LuaValue in
      do throws(LuaError) {
        return try vm.value(of: LuaEncoder().encode(value, in: vm, rootName: name))
      } catch {
        throw .conversion(error)
      }
    }
  }

  /// A Lua value decoded into a Swift type, by `LuaDecoder`.
  public func decode<Value: Decodable>(
    _ type: Value.Type, from value: LuaValue, name: String = "action"
  ) throws(LuaFeatureError) -> Value {
    try queue.access { (vm, loaded) throws(LuaFeatureError) -> Value in
      do throws(LuaError) {
        return try LuaDecoder().decode(type, from: value, in: vm, rootName: name)
      } catch {
        throw .conversion(error)
      }
    }
  }
}
