import LuaKit
import Testing

/// An error's message reaches the host whole, whatever bytes it holds: a NUL in it does not end
/// it (the traceback was built from it as a C string), in a call and in a coroutine.
@Suite struct LuaErrorBytesTests {
  @Test func aNulInAnErrorDoesNotCutItInACall() throws {
    let vm = try LuaVM()
    do {
      _ = try vm.evaluate("error('before\\0after\\255 and the rest', 0)", chunkName: "nul.lua")
      Issue.record("no error")
    } catch {
      #expect(Array(error.message.utf8).contains(0), "\(error.message)")
      #expect(error.message.hasSuffix("after\u{FFFD} and the rest"), "\(error.message)")
    }
  }

  @Test func aNulInAnErrorDoesNotCutItInACoroutine() throws {
    let vm = try LuaVM()
    guard case let .function(body) = try vm.evaluate(
      "return function() coroutine.yield() error('one\\0two', 0) end")[0]
    else {
      Issue.record("no function")
      return
    }
    let coroutine = try vm.makeCoroutine(body)
    _ = try vm.resume(coroutine)
    do {
      _ = try vm.resume(coroutine)
      Issue.record("no error")
    } catch {
      #expect(error.message == "one\u{0}two", "\(error.message)")
    }
  }
}
