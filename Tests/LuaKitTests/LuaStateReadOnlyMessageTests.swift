import LuaKit
import Testing

/// A write to a state table outside a transaction is refused in LuaKit's own words, or in those
/// the embedder gives (it knows why its state is read-only there).
@Suite struct LuaStateReadOnlyMessageTests {
  func refusal(setting message: String?) throws -> String {
    let vm = try LuaVM()
    if let message { vm.setStateReadOnlyMessage(message) }
    let table = try vm.reference(to: ["n": 1])
    let proxy = try vm.transactionalProxy(of: table)
    let write = try vm.load("local state = ... state.n = 2", chunkName: "kept")
    do {
      _ = try vm.call(write, arguments: [.reference(proxy)])
    } catch {
      #expect(try vm.value(of: table) == ["n": 1])
      return error.message
    }
    Issue.record("the write outside a transaction went through")
    return ""
  }

  @Test func luaKitsOwnWords() throws {
    let text = try refusal(setting: nil)
    #expect(text == "kept:1: state tables are read-only outside a transaction")
  }

  @Test func theEmbeddersWords() throws {
    #expect(
      try refusal(setting: "state changes only in reduce: send an action")
        == "kept:1: state changes only in reduce: send an action")
  }
}
