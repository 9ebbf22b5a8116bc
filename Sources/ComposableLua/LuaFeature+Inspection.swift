import Composable
import LuaKit

/// Looking into a running feature, as the REPL does: an expression over its state, read-only.
extension LuaFeature {
  /// The values of the Lua expression `expression`, with `state` bound to the state (read-only:
  /// a write raises, as it does anywhere outside `reduce`) and `env` to the feature's env. It
  /// runs in the feature's sandbox under its limits.
  public func evaluate(_ expression: String) throws(LuaError) -> [LuaValue] {
    try evaluate(bytes: Array(expression.utf8))
  }

  /// `evaluate` of an expression given as bytes, exactly as typed (what is not UTF-8 included).
  /// Errors name it `name` (`name:1: attempt to index a nil value`), its lines counted as typed.
  public func evaluate(
    bytes expression: [UInt8], name: String = "input"
  ) throws(LuaError) -> [LuaValue] {
    try queue.access { (vm, loaded) throws(LuaError) -> [LuaValue] in
      hostEnvironment.answerForInspection()
      let chunk = try vm.load(
        bytes: Array("local state, env = ... return ".utf8) + expression, chunkName: name,
        in: loaded.sandbox)
      return try vm.call(chunk, arguments: [.reference(stateProxy), .reference(environment)])
    }
  }
}

extension LuaFeature {
  /// Whether the loaded code has `migrate(state)`, which a swap runs.
  public var hasMigrate: Bool { queue.access { $1.module.migrate != nil } }

  /// Where the last swap's `migrate(state)` changed the state, read from its transaction before
  /// it committed (none when the code had no `migrate`).
  public var migrationChanges: Result<[LuaDifference], LuaFeatureError> {
    queue.access { $1.migrationChanges }
  }

  /// What `migrate(state)` changed in the state `restorePersisted` restored, when it ran on it
  /// (the state was saved by other code); nil when it did not run.
  public var restoreMigration: Result<[LuaDifference], LuaFeatureError>? {
    queue.access { $1.restoreMigration }
  }

  /// Bytes the feature's VM holds after a full collection: the state, its proxies, the code.
  public func memoryInUse() -> Int {
    queue.access { vm, _ in
      vm.collectGarbage()
      return vm.memoryInUse
    }
  }
}
