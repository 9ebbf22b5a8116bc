/// Two versions of a feature that persists, for the tests of a restore by other code
/// (MigrateOnRestoreTests, and RunMigrateOnRestoreTests through the command).
public enum MigrateOnRestoreSources {
  /// Version 1 keeps `n`.
  public static let v1 = """
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "tally.saved.lua", debounce = 0 },
      initial_state = function() return { n = 0 } end,
      reduce = function(state, action) if action.type == "inc" then state.n = state.n + 1 end end,
    }
    """
  /// Version 2 keeps `count`, ten times `n`; its `migrate` is written for states of version 1
  /// only (it would multiply again a state it already migrated).
  public static let v2 = """
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "tally.saved.lua", debounce = 0 },
      initial_state = function() return { count = 0 } end,
      migrate = function(state)
        state.count = (state.count or 0) + state.n * 10
        state.n = nil
      end,
      reduce = function(state, action)
        if action.type == "inc" then state.count = state.count + 1 end
      end,
    }
    """
}
