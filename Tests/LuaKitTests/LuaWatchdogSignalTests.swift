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

  /// A new thread takes the mask of the one that made it, and Dispatch's threads block every
  /// signal: the watchdog unblocks its signal on a thread when a call begins there, but a call
  /// that finds no free watch slot (a full suite's VMs in use at once) begins none, and the
  /// thread blocks it still.
  private static func unblockSignal() {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGURG)
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
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
      // A host's thread that takes the signal (the test's premise): it does not block it.
      Self.unblockSignal()
      _ = try? LuaVM()  // the watchdog runs
      let before = lk_watch_handler_reinstalls()
      hostSignals.store(0, ordering: .relaxed)
      signal(SIGURG) { _ in hostSignals.add(1, ordering: .relaxed) }
      let reinstalled = Self.waitForReinstalls(beyond: before)
      let stopped = Self.stopsAtTheBudget("while true do end")
      // A SIGURG the host gets (say, out-of-band data on a socket) still reaches its handler.
      // SIGURG does not queue: one sent while the watchdog's is still pending here (a look
      // made late, on a loaded machine, for the call that just ended) is one signal with the
      // watchdog's mark, which is not the host's, as POSIX has it for any two of one signal.
      // So the host's is sent again until one arrives alone (the suite failed once, in CI).
      for _ in 0..<50 where hostSignals.load(ordering: .relaxed) == 0 {
        pthread_kill(pthread_self(), SIGURG)
        usleep(20_000)
      }
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

  /// A host that chains to the handler it replaced (the usual idiom) finds ours there, and the
  /// watchdog puts ours back over the host's, chaining it: ours called the host's, which called
  /// ours, ... until the stack ran out (an attacker's finding; capped at 20 here). Now the host's
  /// handler runs once for its signal.
  @Test func aHostChainingToTheHandlerItReplacedRunsOnce() async {
    let (foundOurs, reinstalled, calls, deepest) = await onNewThread {
      _ = try? LuaVM().evaluate("return 1")  // the watchdog runs; this thread takes its signal
      var current = sigaction()
      sigaction(SIGURG, nil, &current)
      if current.sa_flags & SA_SIGINFO == 0 {  // an earlier test's handler: wait for ours back
        _ = Self.waitForReinstalls(beyond: lk_watch_handler_reinstalls())
      }
      let before = lk_watch_handler_reinstalls()
      chainCalls.store(0, ordering: .relaxed)
      chainDepth.store(0, ordering: .relaxed)
      chainDeepest.store(0, ordering: .relaxed)
      var action = sigaction()
      chainThread.store(UInt(pthread_self()), ordering: .relaxed)
      action.__sigaction_handler.sa_sigaction = { signal, info, context in
        // The handler is the process's: a SIGURG the watchdog sends a call of another test, on
        // another thread, comes here too (and counted, made this one's 2 in a full run). It
        // is chained to ours, so that call still stops, and not counted.
        guard UInt(pthread_self()) == chainThread.load(ordering: .relaxed) else {
          let previous = chainPrevious.load(ordering: .relaxed)
          if previous != 0 { unsafeBitCast(previous, to: SignalHandler.self)(signal, info, context) }
          return
        }
        chainCalls.add(1, ordering: .relaxed)
        let depth = chainDepth.add(1, ordering: .relaxed).newValue
        if depth > chainDeepest.load(ordering: .relaxed) {
          chainDeepest.store(depth, ordering: .relaxed)
        }
        let previous = chainPrevious.load(ordering: .relaxed)
        if depth < 20, previous != 0 {
          unsafeBitCast(previous, to: SignalHandler.self)(signal, info, context)
        }
        chainDepth.subtract(1, ordering: .relaxed)
      }
      action.sa_flags = SA_SIGINFO
      var previous = sigaction()
      sigaction(SIGURG, &action, &previous)
      let foundOurs = previous.sa_flags & SA_SIGINFO != 0
      if foundOurs, let handler = previous.__sigaction_handler.sa_sigaction {
        chainPrevious.store(unsafeBitCast(handler, to: Int.self), ordering: .relaxed)
      }
      let reinstalled = Self.waitForReinstalls(beyond: before)
      pthread_kill(pthread_self(), SIGURG)
      signal(SIGURG, SIG_IGN)
      chainPrevious.store(0, ordering: .relaxed)
      return (
        foundOurs, reinstalled, chainCalls.load(ordering: .relaxed),
        chainDeepest.load(ordering: .relaxed)
      )
    }
    #expect(foundOurs, "the watchdog's handler was not the one replaced")
    #expect(reinstalled)
    #expect(calls == 1, "\(calls) calls, \(deepest) deep, for one signal")
    #expect(deepest == 1)
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

/// A `SA_SIGINFO` handler, as `sigaction` holds it.
private typealias SignalHandler =
  @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void
/// The chaining host's calls, how deep they are now and were at most, and the handler it
/// replaced (its address; 0: none).
private let chainCalls = Atomic<Int>(0)
private let chainDepth = Atomic<Int>(0)
private let chainDeepest = Atomic<Int>(0)
private let chainPrevious = Atomic<Int>(0)
/// The thread whose signal the chaining host counts.
private let chainThread = Atomic<UInt>(0)
