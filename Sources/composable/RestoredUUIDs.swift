import Composable
import LuaKit

/// `--uuid incrementing` counts from 00000000-0000-0000-0000-000000000000 in every run, so a run
/// that restored a state holding the UUIDs an earlier run made made them again: a new todo took
/// an old one's id (a new user's finding); so did a first run whose `initial_state` held some.
/// A run counts on from the largest its state at start holds.
enum RestoredUUIDs {
  /// The largest count of an `incrementing` UUID in `state`, as a string value or a key, at any
  /// depth; nil when it holds none. Each table is looked at once, however many places hold it
  /// (a saved file can share a table 2^40 ways in a few lines).
  static func largestIncrementing(in state: LuaValue) -> UInt64? {
    var largest: UInt64?
    var pending = [state]  // a stack, not recursion: a state may be deep
    var seen = Set<LuaTableIdentity>()
    while let value = pending.popLast() {
      switch value {
      case let .string(text):
        // Anywhere in the string: an id kept with a prefix (`"todo:" .. env.uuid()`) too.
        for count in incrementingCounts(in: text.bytes) { largest = max(largest ?? 0, count) }
      case let .table(table):
        guard seen.insert(table.identity).inserted else { continue }
        for (key, value) in table.entries { pending += [key, value] }
      default: break
      }
    }
    return largest
  }

  /// The counts of the `incrementing` UUIDs in `bytes`, wherever they are in it.
  static func incrementingCounts(in bytes: [UInt8]) -> [UInt64] {
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

  /// The generator for a run with `--uuid incrementing` that restored `state`, and the note that
  /// says where it starts (nil when the state holds none of its UUIDs: it starts at 0).
  static func generator(after state: LuaValue) -> (UUIDGenerator, note: String?) {
    guard let largest = largestIncrementing(in: state) else { return (.incrementing, nil) }
    let first = (largest &+ 1) & UUIDGenerator.incrementingLast
    let text = { (count: UInt64) in UUIDGenerator.incrementing(from: count)().uuidString }
    let note =
      largest == UUIDGenerator.incrementingLast
      ? "--uuid incrementing: the state at start holds \(text(largest)), the last of its UUIDs, "
        + "so it counts from \(text(first)) again, and may repeat one the state holds"
      : "--uuid incrementing counts from \(text(first)): the state at start holds its UUIDs up "
        + "to \(text(largest)), and a new id repeating one would name two things"
    return (.incrementing(from: first), note)
  }
}
