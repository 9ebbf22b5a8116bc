import Foundation
import TestSupport
import Testing

/// A program that drives the REPL through pipes (an editor, a script with `expect`) reads its
/// greeting before it sends anything: standard output to a pipe is buffered, and the greeting
/// came only with the first answer.
@Suite struct ReplGreetingTests {
  @Test func thePipedGreetingArrivesBeforeAnyInput() throws {
    let directory = try makeTemporaryDirectory("greeting")
    let feature = directory.appendingPathComponent("counter.lua")
    try """
    return {
      initial_state = function() return { count = 0 } end,
      reduce = function(state, action)
        if action.type == "increment" then state.count = state.count + 1 end
      end,
    }
    """.write(to: feature, atomically: true, encoding: .utf8)
    let repl = try Command.start(
      ["repl", feature.path, "--data", directory.appendingPathComponent("data").path])
    // Should the greeting never come, the input ends after a while (the REPL then quits,
    // printing what it held): the test says so, where it would otherwise wait forever.
    let endedByWatchdog = Locked(false)
    let input = repl.input.fileHandleForWriting
    DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
      endedByWatchdog.withLock { $0 = true }
      try? input.close()
    }
    let greeting = repl.output.read(until: "Saving the file reloads it.\n")
    #expect(!endedByWatchdog.withLock { $0 }, "\(greeting)")
    #expect(greeting.contains("counter.lua: state { count = 0 }"), "\(greeting)")
    input.write(Data("increment\n".utf8))
    let answer = repl.output.read(until: "+ count = 1\n")
    #expect(answer.contains("+ count = 1"), "\(answer)")
    if !endedByWatchdog.withLock { $0 } { try? input.close() }
    repl.process.waitUntilExit()
    #expect(repl.process.terminationStatus == 0)
  }
}
