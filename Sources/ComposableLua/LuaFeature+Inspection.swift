import Composable
import LuaKit

/// Looking into a running feature, as the REPL does: an expression over its state, read-only.
extension LuaFeature {
  /// The values of the Lua expression `expression`, with `state` bound to the state (read-only:
  /// a write raises, as it does anywhere outside `reduce`) and `env` to a read-only view of the
  /// feature's env (an expression is not recorded: what it changed there, a replay of the
  /// session would not see). It runs in the feature's sandbox under its limits.
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
      // All on the first line, so that the expression's lines are counted as typed.
      let chunk = try vm.load(
        bytes: Array("local state, env, view = ... env = view(env) return ".utf8) + expression,
        chunkName: name, in: loaded.sandbox)
      let view = try vm.load(Self.readOnlyViewSource, chunkName: "=(read-only env)")
      return try vm.call(
        chunk, arguments: [.reference(stateProxy), .reference(environment), .reference(view)])
    }
  }

  /// A trusted chunk: `(table)` -> a view of it that reads as it does, nested tables as views
  /// too, and raises at a write. A write to the view itself with `rawset` lands in the view, a
  /// table made for this one expression.
  static let readOnlyViewSource = """
    local setmetatable, type, next, error = setmetatable, type, next, error
    local message = "env is read-only in an expression: an expression is not recorded, so a "
      .. "change to env would not be in the session, and a replay would not see it"
    local views = {}
    local function view(t)
      if views[t] then return views[t] end
      local v = {}
      views[t] = v
      local function wrap(x) if type(x) == "table" then return view(x) end return x end
      return setmetatable(v, {
        __index = function(_, k) return wrap(t[k]) end,
        __newindex = function() error(message, 2) end,
        __len = function() return #t end,
        __pairs = function()
          return function(_, k)
            local key, value = next(t, k)
            return key, wrap(value)
          end, v, nil
        end,
        __metatable = false,
      })
    end
    return view(...)
    """
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
