import Composable
import ComposableLua
import LuaKit

/// The UUIDs `UUIDGenerator.incrementing` makes, found in values: a generator that counts on
/// past the largest a state (or a session) holds makes none of them again.
public enum IncrementingUUIDs {
  /// The largest count of an `incrementing` UUID in `state`, as a string value or a key, at any
  /// depth; nil when it holds none. Each table is looked at once, however many places hold it
  /// (a saved file can share a table 2^40 ways in a few lines).
  ///
  /// ```swift
  /// IncrementingUUIDs.largest(in: ["id": "00000000-0000-0000-0000-00000000000A"])  // 10
  /// ```
  public static func largest(in state: LuaValue) -> UInt64? {
    largest(in: [state])
  }

  /// The largest count of an `incrementing` UUID among what `env.uuid()` answered in `draws`
  /// (and in `values`); nil for none.
  static func largest(
    in draws: some Sequence<LuaEnvironmentTape.Draw>, and values: [LuaValue] = []
  ) -> UInt64? {
    largest(in: values + draws.filter { $0.name == "uuid" }.map(\.value))
  }

  private static func largest(in values: [LuaValue]) -> UInt64? {
    var largest: UInt64?
    var pending = values  // a stack, not recursion: a state may be deep
    var seen = Set<LuaTableIdentity>()
    while let value = pending.popLast() {
      switch value {
      case let .string(text):
        // Anywhere in the string: an id kept with a prefix (`"todo:" .. env.uuid()`) too.
        for count in counts(in: text.bytes) { largest = max(largest ?? 0, count) }
      case let .table(table):
        guard seen.insert(table.identity).inserted else { continue }
        for (key, value) in table.entries { pending += [key, value] }
      default: break
      }
    }
    return largest
  }

  /// The counts of the `incrementing` UUIDs in `bytes`, wherever they are in it.
  static func counts(in bytes: [UInt8]) -> [UInt64] {
    let prefix = Array("00000000-0000-0000-0000-".utf8)
    guard bytes.count >= 36 else { return [] }
    var counts: [UInt64] = []
    var start = 0
    while start + 36 <= bytes.count {
      if bytes[start] == 0x30, bytes[start..<(start + 24)].elementsEqual(prefix),
        let count = UUIDGenerator.incrementingCount(
          String(decoding: bytes[start..<(start + 36)], as: UTF8.self))
      {
        counts.append(count)
        start += 36
      } else {
        start += 1
      }
    }
    return counts
  }
}
