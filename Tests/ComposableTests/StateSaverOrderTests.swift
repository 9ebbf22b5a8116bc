@testable import Composable
import Foundation
import Testing

/// A saver's writes never overlap, so the file ends with the newest state, however quickly
/// saves come: two writes at once could finish in either order and leave an older state last.
///
/// One test at a time: three of them hold a thread of the task pool on purpose (a write or a
/// state being made, without suspending, as a large save does), and side by side on a machine
/// of two cores they held all of it, and the tasks that would release them never ran.
@Suite(.serialized) struct StateSaverOrderTests {
  /// A state changed and saved with no delay, again and again, each save in its own task (as a
  /// store runs effects); the file then holds the last state, every round.
  @Test(arguments: 1...5)
  func theLastStateIsTheOneOnDisk(round: Int) async throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "saver-order-\(UUID())")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    // Each write waits a random while before it writes, as a loaded disk does: writes that
    // overlapped would finish in any order.
    let live = FileClient.live(root: root)
    var files = live
    files.write = { path, bytes in
      try await Task.sleep(for: .microseconds(Int.random(in: 0...2_000)))
      try await live.write(path, bytes)
    }
    let path = try DataPath(validating: Array("state.txt".utf8))
    let state = SaveCount()
    let saver = StateSaver(path: path)
    let errors = SaveCount()
    await withTaskGroup(of: Void.self) { group in
      for _ in 1...100 {
        state.increment()
        saver.changed()
        let effect: Effect<Never> = saver.save(
          contents: { Array("\(state.value)".utf8) }, delay: .zero, clock: ContinuousClock(),
          files: files, onError: { _ in errors.increment() })
        group.addTask { await run(effect) }
        if Bool.random() { await Task.yield() }
      }
    }
    try await saver.savePending(files: files)
    #expect(errors.value == 0)
    #expect(saver.isPending == false)
    let written = try String(contentsOf: root.appendingPathComponent("state.txt"), encoding: .utf8)
    #expect(written == "100", "round \(round)")
  }
}

extension StateSaverOrderTests {
  /// A signal's save (`savePending(write:)`, no tasks) while a save's effect is writing an older
  /// state: it waits for that write, so the newer state lands last.
  @Test func aSignalsSaveWaitsForAWriteUnderWay() async throws {
    let path = try DataPath(validating: Array("state.txt".utf8))
    let state = SaveCount()
    let log = WriteLog()
    let started = WriteLog()
    let released = WriteLog()
    var files = FileClient.live(root: FileManager.default.temporaryDirectory)
    files.write = { _, bytes in
      started.append("started")
      // Held, without suspending, until the signal's save is under way: released, it ends at
      // once, whatever else keeps the task pool busy.
      while released.entries.isEmpty { usleep(1000) }
      log.append("effect wrote " + String(decoding: bytes, as: UTF8.self))
    }
    let saver = StateSaver(path: path)
    state.increment()
    saver.changed()
    let effect: Effect<Never> = saver.save(
      contents: { Array("\(state.value)".utf8) }, delay: .zero, clock: ContinuousClock(),
      files: files, onError: { _ in })
    let writing = Task { await run(effect) }
    while started.entries.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
    state.increment()
    saver.changed()
    // As a signal's thread does it: synchronously, on a thread of its own; the write under
    // way is let go while it waits (it waits up to 2 s).
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      Thread {
        try? saver.savePending { _, bytes in
          log.append("signal wrote " + String(decoding: bytes, as: UTF8.self))
        } read: { _ in
          nil
        }
        done.resume()
      }.start()
      Thread {
        usleep(100_000)
        released.append("released")
      }.start()
    }
    await writing.value
    #expect(log.entries == ["effect wrote 1", "signal wrote 2"])
  }
}

extension StateSaverOrderTests {
  /// A save's effect whose state is still being made (held, without suspending, as a large
  /// state's is) when a signal's save runs; the effect's state is let go `whileTheSignalWaits`
  /// (within its 2 s) or once the signal's save is done. With `changedAgain`, a change comes
  /// after the effect began: the signal's save makes "2", otherwise the same "1". What was
  /// written, in order.
  private func signalsSaveWhileAStateIsMade(
    changedAgain: Bool, whileTheSignalWaits: Bool
  )
    async throws -> [String]
  {
    let path = try DataPath(validating: Array("state.txt".utf8))
    let log = WriteLog()
    let making = WriteLog()
    let released = WriteLog()
    var files = FileClient.live(root: FileManager.default.temporaryDirectory)
    files.write = { _, bytes in log.append("effect wrote " + String(decoding: bytes, as: UTF8.self))
    }
    let saver = StateSaver(path: path)
    saver.changed()
    let effect: Effect<Never> = saver.save(
      contents: {
        // The effect's call is the first, held; the signal's, the second, is made at once.
        making.append("making")
        guard making.entries.count == 1 else { return Array((changedAgain ? "2" : "1").utf8) }
        while released.entries.isEmpty { usleep(1000) }
        return Array("1".utf8)
      }, delay: .zero, clock: ContinuousClock(), files: files, onError: { _ in })
    let writing = Task { await run(effect) }
    while making.entries.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
    if changedAgain { saver.changed() }
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      Thread {
        try? saver.savePending { _, bytes in
          log.append("signal wrote " + String(decoding: bytes, as: UTF8.self))
        } read: { _ in
          nil
        }
        released.append("released")
        done.resume()
      }.start()
      if whileTheSignalWaits {
        Thread {
          usleep(200_000)
          released.append("released")
        }.start()
      }
    }
    await writing.value
    #expect(saver.isPending == false)
    return log.entries
  }

  /// A save's effect still making its file (a large state) when a signal's save has waited its
  /// 2 s and written: the effect's older state does not land after it. It did, and the run said
  /// it saved a state its file did not hold (an attacker's finding: a 7 MB state, SIGTERM).
  @Test func aWriteStillBeingMadeDoesNotLandAfterASignalsSave() async throws {
    let written = try await signalsSaveWhileAStateIsMade(
      changedAgain: true, whileTheSignalWaits: false)
    #expect(written == ["signal wrote 2"])
  }

  /// The effect's file made while the signal's save waits for it (within its 2 s), and no change
  /// since: the effect's write, begun before the signal's save, lets it write, and the signal's
  /// save writes the state, not taking it for saved. (A first version counted the changes saved
  /// when the effect's write gave way: the signal's save then wrote nothing, and a first save of
  /// a large state left no file at all, an attacker's finding.)
  @Test func aWriteThatGivesWayLeavesItsChangesToTheSignalsSave() async throws {
    let written = try await signalsSaveWhileAStateIsMade(
      changedAgain: false, whileTheSignalWaits: true)
    #expect(written == ["signal wrote 1"])
  }
}

private final class WriteLog: @unchecked Sendable {
  private let lock = NSLock()
  private var lines: [String] = []
  var entries: [String] { lock.withLock { lines } }
  func append(_ line: String) { lock.withLock { lines.append(line) } }
}

/// Runs the async parts of `effect`, as a store would (each save is one `run`, named).
private func run(_ effect: Effect<Never>) async {
  switch effect.operation {
  case let .run(_, work): await work(Send { _ in })
  case let .named(_, inner): await run(inner)
  default: break
  }
}

private final class SaveCount: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  var value: Int { lock.withLock { count } }
  func increment() { lock.withLock { count += 1 } }
}
