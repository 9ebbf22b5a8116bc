import Foundation
import TestSupport
import Testing

/// `:state NAME` of a field the state does not have said `nil`, as if it were there and empty
/// (a new user's `:state bookz`): it says the state has no such field, and the one it may be.
@Suite struct ReplStateFieldTests {
  @Test func aFieldTheStateDoesNotHaveIsSaid() throws {
    let outcome = try Command.run(
      ["repl", "examples/counter/counter.lua"],
      input: ":state cont\n:state count\n:state zzz\n")
    #expect(outcome.output.contains("nil  (the state has no field cont: did you mean count?)"))
    #expect(outcome.output.contains("\n  0\n"), "\(outcome.output)")
    #expect(!outcome.output.contains("> "), "piped, no prompt: \(outcome.output)")
    #expect(outcome.output.contains("nil  (the state has no field zzz)\n"))
  }
}
