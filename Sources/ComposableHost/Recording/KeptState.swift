import ComposableLua
import Foundation
import LuaKit

/// A state the timeline keeps at a point of the session: a snapshot, or a copy in the feature's
/// VM (`LuaStateCopy`), read into Swift the first time it is asked for. A reload keeps the
/// state where it happened as a copy: a snapshot of 10,000 todos at each save cost the reload
/// 27 ms, most of its time, for a state seldom read.
public final class KeptState: @unchecked Sendable {
  // Sendable by construction: `value` is reached only under `lock`.
  private let lock = NSLock()
  private var value: LuaValue?
  private let copy: LuaStateCopy?

  /// A state kept as the snapshot `value`.
  ///
  /// ```swift
  /// let kept = KeptState(["count": 1])
  /// assert(kept.state == ["count": 1])
  /// ```
  public init(_ value: LuaValue) {
    self.value = value
    copy = nil
  }

  /// A state kept as a copy in its feature's VM.
  init(copy: LuaStateCopy) {
    value = nil
    self.copy = copy
  }

  /// The state. Read outside the timeline's lock: reading a copy takes the feature's, which an
  /// effect drawing from `env` holds while it waits for the timeline's. A copy that cannot be
  /// read (it is data, copied as data) reads as an empty table.
  public var state: LuaValue {
    lock.withLock {
      if let value { return value }
      let read = (try? copy?.value()) ?? [:]
      value = read
      return read
    }
  }
}
