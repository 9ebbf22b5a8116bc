import Foundation
import LuaSupport
import Synchronization
import Testing

@testable import LuaKit

/// SIGURG tells a long call to start counting its budget (Watchdog.c). The host owns
/// the process's signals: whatever it does with SIGURG, runaway code still stops, and a handler
/// of its own still runs. Each test runs on a thread of its own, since masks are per thread.
@Suite(.serialized) struct LuaWatchdogSignalTests {
  /// Runs `body` on a new thread and awaits what it gives (not blocking a thread async tests
  /// share). Expectations are made on what it gives, in the test's own task: one made on the
  /// thread would be recorded against no test.
  private func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
      let thread = Thread { continuation.resume(returning: body()) }
      thread.start()
    }
  }

  private static func blockSignal() {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGURG)
    pthread_sigmask(SIG_BLOCK, &signals, nil)
  }

  /// Whether `source` stops at the instruction budget on a fresh VM.
  private static func stopsAtTheBudget(_ source: String, vm: LuaVM? = nil) -> Bool {
    do {
      let vm = try vm ?? LuaVM(limits: LuaLimits(memory: 64 << 20, instructions: 1_000_000))
      try vm.evaluate(source, chunkName: "spin.lua", in: try vm.makeSandbox())
      return false
    } catch let error as LuaError {
      if case .instructionLimit = error { return true }
      return false
    } catch {
      return false
    }
  }

  /// Waits (at most two seconds) until the watchdog has put its handler back `count` times.
  private static func waitForReinstalls(beyond count: UInt32) -> Bool {
    for _ in 0..<200 {
      if lk_watch_handler_reinstalls() > count { return true }
      usleep(10_000)
    }
    return false
  }

  @Test func aHandlerTheHostInstallsIsChainedAndTheBudgetStillHolds() async {
    let (reinstalled, stopped, received) = await onNewThread {
      _ = try? LuaVM()  // the watchdog runs
      let before = lk_watch_handler_reinstalls()
      hostSignals.store(0, ordering: .relaxed)
      signal(SIGURG) { _ in hostSignals.add(1, ordering: .relaxed) }
      let reinstalled = Self.waitForReinstalls(beyond: before)
      let stopped = Self.stopsAtTheBudget("while true do end")
      // A SIGURG the host gets (say, out-of-band data on a socket) still reaches its handler.
      pthread_kill(pthread_self(), SIGURG)
      return (reinstalled, stopped, hostSignals.load(ordering: .relaxed))
    }
    #expect(reinstalled)
    #expect(stopped)
    #expect(received >= 1)
  }

  /// A thread that blocks the signal and ends its call before taking the watchdog's signal ends
  /// with the signal unhandled. A new thread is often given the ended one's id: the host's own
  /// signal on it is the host's, not taken for the watchdog's.
  @Test func aSignalLeftUnhandledByAnEndedThreadIsNotTakenForANewOnes() async {
    guard let made = try? LuaVM(limits: LuaLimits(memory: 64 << 20, instructions: 1 << 40))
    else {
      Issue.record("no VM")
      return
    }
    let vm = OneThreadAtATime(made)
    hostSignals.store(0, ordering: .relaxed)
    let before = lk_watch_handler_reinstalls()
    signal(SIGURG) { _ in hostSignals.add(1, ordering: .relaxed) }
    #expect(Self.waitForReinstalls(beyond: before))
    let endedThread = await onNewThread {
      _ = try? vm.value.evaluate("return 1")  // unblocks the signal on this thread
      Self.blockSignal()
      // Long enough for the watchdog's two looks; allocates nothing, so the signal stays pending
      // and the thread ends with it.
      _ = try? vm.value.evaluate("local n = 0 for i = 1, 150000000 do n = n + i end return n")
      return ThreadID(pthread_self())
    }
    let (reused, received) = await onNewThread {
      let reused = pthread_equal(endedThread.value, pthread_self()) != 0
      _ = try? vm.value.evaluate("return 1")  // the VM's calls run on this thread now
      pthread_kill(pthread_self(), SIGURG)
      return (reused, hostSignals.load(ordering: .relaxed))
    }
    #expect(received >= 1, "the new thread was given the ended one's id: \(reused)")
    withExtendedLifetime(vm) {}
  }

  @Test func ignoringTheSignalDoesNotTurnTheBudgetOff() async {
    let stopped = await onNewThread {
      _ = try? LuaVM()
      signal(SIGURG, SIG_IGN)
      return Self.stopsAtTheBudget("while true do end")
    }
    #expect(stopped)
  }

  @Test func aThreadThatBlocksTheSignalBeforeItsFirstCallIsStopped() async {
    let stopped = await onNewThread {
      Self.blockSignal()
      return Self.stopsAtTheBudget("while true do end")
    }
    #expect(stopped)
  }

  @Test func aThreadThatBlocksTheSignalLaterIsStopped() async throws {
    let vm = try OneThreadAtATime(
      LuaVM(limits: LuaLimits(memory: 64 << 20, instructions: 1_000_000)))
    let (first, allocating, notAllocating) = await onNewThread {
      let first = try? vm.value.evaluate("return 1")  // this thread unblocked the signal
      Self.blockSignal()
      // The signal stays pending; the call arms its own hook at its next allocation, as the
      // watchdog asked with the signal.
      let allocating = Self.stopsAtTheBudget(
        "local t = {} while true do t[#t % 100 + 1] = {} end", vm: vm.value)
      // That unblocked the signal again: a loop that allocates nothing stops too.
      let notAllocating = Self.stopsAtTheBudget("while true do end", vm: vm.value)
      return (first == [1], allocating, notAllocating)
    }
    #expect(first)
    #expect(allocating)
    #expect(notAllocating)
  }

  /// A VM handed from one thread to the next, each awaited before the next starts.
  private struct OneThreadAtATime: @unchecked Sendable {
    let value: LuaVM
    init(_ value: LuaVM) { self.value = value }
  }

  /// A thread's id, handed back from it.
  private struct ThreadID: @unchecked Sendable {
    let value: pthread_t
    init(_ value: pthread_t) { self.value = value }
  }
}

/// SIGURGs the test's own handler got.
private let hostSignals = Atomic<Int>(0)
