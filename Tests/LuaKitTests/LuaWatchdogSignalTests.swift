import Foundation
import LuaSupport
import Synchronization
import Testing

@testable import LuaKit

/// SIGURG tells a long call to start counting its budget (Watchdog.c). The host owns
/// the process's signals: whatever it does with SIGURG, runaway code still stops, and a handler
/// of its own still runs. Each test runs on a thread of its own, since masks are per thread.
@Suite(.serialized) struct LuaWatchdogSignalTests {
  /// Runs `body` on a new thread and awaits it (not blocking a thread async tests share).
  private func onNewThread(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let thread = Thread {
        body()
        continuation.resume()
      }
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
    await onNewThread {
      _ = try? LuaVM()  // the watchdog runs
      let before = lk_watch_handler_reinstalls()
      hostSignals.store(0, ordering: .relaxed)
      signal(SIGURG) { _ in hostSignals.add(1, ordering: .relaxed) }
      #expect(Self.waitForReinstalls(beyond: before))
      #expect(Self.stopsAtTheBudget("while true do end"))
      // A SIGURG the host gets (say, out-of-band data on a socket) still reaches its handler.
      pthread_kill(pthread_self(), SIGURG)
      #expect(hostSignals.load(ordering: .relaxed) >= 1)
    }
  }

  @Test func ignoringTheSignalDoesNotTurnTheBudgetOff() async {
    await onNewThread {
      _ = try? LuaVM()
      signal(SIGURG, SIG_IGN)
      #expect(Self.stopsAtTheBudget("while true do end"))
    }
  }

  @Test func aThreadThatBlocksTheSignalBeforeItsFirstCallIsStopped() async {
    await onNewThread {
      Self.blockSignal()
      #expect(Self.stopsAtTheBudget("while true do end"))
    }
  }

  @Test func aThreadThatBlocksTheSignalLaterIsStopped() async throws {
    await onNewThread {
      guard let vm = try? LuaVM(limits: LuaLimits(memory: 64 << 20, instructions: 1_000_000))
      else {
        Issue.record("no VM")
        return
      }
      #expect((try? vm.evaluate("return 1")) == [1])  // this thread unblocked the signal
      Self.blockSignal()
      // The signal stays pending; the call arms its own hook at its next allocation, as the
      // watchdog asked with the signal.
      #expect(Self.stopsAtTheBudget("local t = {} while true do t[#t % 100 + 1] = {} end", vm: vm))
      // That unblocked the signal again: a loop that allocates nothing stops too.
      #expect(Self.stopsAtTheBudget("while true do end", vm: vm))
    }
  }
}

/// SIGURGs the test's own handler got.
private let hostSignals = Atomic<Int>(0)
