import LuaKit
import Testing

/// The watchdog has a fixed number of slots; a state made when all are held times its own
/// calls (its hook and charged library calls look at the clock), so its time limit holds too.
@Suite(.serialized) struct LuaUnwatchedStateTests {
  @Test func aStateBeyondTheWatchdogsSlotsStillStopsAtItsTimeLimit() throws {
    var held: [LuaVM] = []
    for _ in 0..<300 {  // more than the watchdog's 256 slots
      held.append(try LuaVM(limits: LuaLimits(memory: 1 << 20, instructions: nil, seconds: 0.2)))
    }
    // The last ones made have no slot (others may have been taken by tests running at once).
    for vm in held.suffix(2) {
      let sandbox = try vm.makeSandbox()
      do {
        try vm.evaluate("while true do end", in: sandbox)
        Issue.record("expected the time limit")
      } catch {
        guard case .timeLimit = error else {
          Issue.record("expected the time limit, got \(error)")
          continue
        }
      }
      do {
        try vm.evaluate(
          "local s = ('x'):rep(1000) while true do s:find('y', 1, true) end", in: sandbox)
        Issue.record("expected the time limit")
      } catch {
        guard case .timeLimit = error else {
          Issue.record("expected the time limit, got \(error)")
          continue
        }
      }
    }
  }
}
