import Composable
import LuaKit

/// Looking into a running feature, as the REPL does: an expression over its state, read-only.
extension LuaFeature {
  /// The values of the Lua expression `expression`, with `state` bound to the state (read-only:
  /// a write raises, as it does anywhere outside `reduce`) and `env` to the feature's env. It
  /// runs in the feature's sandbox under its limits. A syntax error whose input merely ended too
  /// soon says so (`LuaError.syntax(incompleteInput: true)`), for a caller that reads more.
  public func evaluate(_ expression: String) throws(LuaError) -> [LuaValue] {
    try queue.access { (vm, loaded) throws(LuaError) -> [LuaValue] in
      let chunk = try vm.load(
        "local state, env = ...\nreturn " + expression, chunkName: "input", in: loaded.sandbox)
      return try vm.call(chunk, arguments: [.reference(stateProxy), .reference(environment)])
    }
  }

  /// Whether `expression` is a Lua expression so far incomplete (an open table or call) that
  /// more lines may finish.
  public func isIncomplete(_ expression: String) -> Bool {
    queue.access { (vm, loaded) -> Bool in
      do throws(LuaError) {
        _ = try vm.load("return " + expression, chunkName: "input", in: loaded.sandbox)
        return false
      } catch {
        if case .syntax(_, incompleteInput: true) = error { return true }
        return false
      }
    }
  }
}

extension LuaFeature {
  /// Whether the last action wrote to the state: a host that keeps a snapshot of the state
  /// need not read it again after an action that wrote nothing.
  public var lastActionWrote: Bool { queue.access { $1.lastActionWrote } }
}

extension LuaFeature {
  /// Whether the loaded code has `migrate(state)`, which a swap runs.
  public var hasMigrate: Bool { queue.access { $1.module.migrate != nil } }
}
