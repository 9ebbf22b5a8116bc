import Composable
import ComposableHost
import LuaKit

/// `--uuid incrementing` counts from 00000000-0000-0000-0000-000000000000 in every run, so a run
/// that restored a state holding the UUIDs an earlier run made made them again: a new todo took
/// an old one's id (a new user's finding); so did a first run whose `initial_state` held some.
/// A run counts on from the largest its state at start holds.
enum RestoredUUIDs {
  /// The generator for a run with `--uuid incrementing` that restored `state`, and the note that
  /// says where it starts (nil when the state holds none of its UUIDs: it starts at 0).
  static func generator(after state: LuaValue) -> (UUIDGenerator, note: String?) {
    guard let largest = IncrementingUUIDs.largest(in: state) else { return (.incrementing, nil) }
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
