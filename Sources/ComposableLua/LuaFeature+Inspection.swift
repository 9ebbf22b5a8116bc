import Composable
import LuaKit

/// Looking into a running feature, as the REPL does: an expression over its state, read-only.
extension LuaFeature {
  /// The values of the Lua expression `expression`, with `state` bound to the state (read-only:
  /// a write raises, as it does anywhere outside `reduce`) and `env` to the feature's env. It
  /// runs in the feature's sandbox under its limits.
  ///
  /// An expression is not recorded, so what it changed, the next actions would get and a
  /// replay of the session would not: it reads a copy of `env`, and fails if it changed the
  /// copy, or the sandbox's globals or the tables they hold (`string`, a module kept in a
  /// global), which are put back as they were. (What it changes by calling the feature's own
  /// functions, their locals, is out of its reach to see.)
  public func evaluate(_ expression: String) throws(LuaError) -> [LuaValue] {
    try evaluate(bytes: Array(expression.utf8))
  }

  /// `evaluate` of an expression given as bytes, exactly as typed (what is not UTF-8 included).
  /// Errors name it `name` (`name:1: attempt to index a nil value`), its lines counted as typed.
  public func evaluate(
    bytes expression: [UInt8], name: String = "input"
  ) throws(LuaError) -> [LuaValue] {
    try queue.access { (vm, loaded) throws(LuaError) -> [LuaValue] in
      let call = try guardedExpression(expression, name: name, vm: vm, loaded: &loaded)
      return try vm.call(call.function, arguments: call.arguments)
    }
  }

  /// The call that runs `expression` inside the guard (see `expressionGuardSource`). Sets
  /// `env` to answer for an inspection. Under the queue.
  private func guardedExpression(
    _ expression: [UInt8], name: String, vm: LuaVM, loaded: inout Loaded
  ) throws(LuaError) -> (function: LuaReference, arguments: [LuaArgument]) {
    hostEnvironment.answerForInspection()
    let chunk = try vm.load(
      bytes: Array("local state, env = ... return ".utf8) + expression, chunkName: name,
      in: loaded.sandbox)
    let guarded: LuaReference
    if let compiled = loaded.expressionGuard {
      guarded = compiled
    } else {
      guarded = try vm.load(Self.expressionGuardSource, chunkName: "=(expression guard)")
      loaded.expressionGuard = guarded
    }
    return (
      guarded,
      [
        .reference(chunk), .reference(stateProxy), .reference(environment),
        .reference(loaded.sandbox.environment),
      ]
    )
  }

  /// `evaluate`, each value as the REPL shows it: laid out as Lua (`LuaValue.pretty`), or, for
  /// a value no snapshot takes (a table inside itself, as a class whose `__index` is itself),
  /// on one line read from Lua, each table reached twice labelled (`LuaVM.writeDescription`).
  public func evaluateShown(
    bytes expression: [UInt8], name: String = "input"
  ) throws(LuaError) -> [String] {
    try queue.access { (vm, loaded) throws(LuaError) -> [String] in
      let call = try guardedExpression(expression, name: name, vm: vm, loaded: &loaded)
      let results = try vm.callKeepingResults(call.function, arguments: call.arguments)
      return try results.enumerated().map { (index, result) throws(LuaError) -> String in
        do throws(LuaError) {
          return try vm.value(of: result, rootName: "result #\(index + 1)").pretty()
        } catch {
          guard case .conversion = error else { throw error }
          var text = ""
          do throws(LuaError) { try vm.writeDescription(of: result, to: &text) } catch {
            throw error
          }
          return text
        }
      }
    }
  }

  /// A trusted chunk: `(run, state, env, globals)` runs `run(state, copy of env)` and returns
  /// what it returns; raises if the copy, `globals` or a table a global holds changed, after
  /// putting those back.
  static let expressionGuardSource = """
    local run, state, env, globals = ...
    local next, type, error, rawget, rawset = next, type, error, rawget, rawset
    local pack, unpack = table.pack, table.unpack
    local getmeta = debug and debug.getmetatable
    local setmeta = debug and debug.setmetatable
    local function copy(t, seen)
      if seen[t] then return seen[t] end
      local c = {}
      seen[t] = c
      for k, v in next, t do
        if type(v) == "table" then v = copy(v, seen) end
        rawset(c, k, v)
      end
      if getmeta and setmeta then setmeta(c, getmeta(t)) end  -- an array stays one
      return c
    end
    local function equal(a, b) return a == b or (a ~= a and b ~= b) end
    local function same(c, t, seen)
      if seen[c] then return seen[c] == t end
      seen[c] = t
      for k, v in next, c do
        local w = rawget(t, k)
        if type(v) == "table" then
          if type(w) ~= "table" or not same(v, w, seen) then return false end
        elseif not equal(v, w) then
          return false
        end
      end
      for k in next, t do
        if rawget(c, k) == nil then return false end
      end
      return true
    end
    -- The globals, and each table a global holds, one level: as they were, to compare and put
    -- back.
    local kept = {}
    local function keep(t)
      if kept[t] then return end
      local entries = {}
      for k, v in next, t do entries[k] = v end
      kept[t] = entries
    end
    keep(globals)
    for _, v in next, globals do
      if type(v) == "table" then keep(v) end
    end
    -- The strings' metatable, which every string method call goes through (`("a"):upper()`).
    local strings = getmeta and getmeta("")
    if strings then keep(strings) end
    local function restore()
      local changed
      for t, entries in next, kept do
        for k, v in next, t do
          if not equal(entries[k], v) then changed = changed or k; rawset(t, k, entries[k]) end
        end
        for k, v in next, entries do
          if rawget(t, k) == nil then changed = changed or k; rawset(t, k, v) end
        end
      end
      return changed
    end
    local view = copy(env, {})
    local results = pack(run(state, view))
    local global = restore()
    if global ~= nil then
      error("an expression cannot change the feature's globals or their tables (it changed "
        .. tostring(global) .. "): an expression is not recorded, so a replay of the session "
        .. "would not see it. It is put back", 0)
    end
    if not same(view, env, {}) then
      error("env is read-only in an expression: an expression is not recorded, so a change to "
        .. "env would not be in the session, and a replay would not see it", 0)
    end
    return unpack(results, 1, results.n)
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

  /// Where the state `restorePersisted` restored from a file other code saved is not shaped as
  /// the state `initial_state()` gave (nothing, or another type, where it has a value), once
  /// `migrate(state)` ran on it: the first places (`RestoredShapeGap.gaps`) and how many in
  /// all. Nil when the state was not restored, was saved by this code, or has every field.
  ///
  /// ```swift
  /// try await feature.restorePersisted(files: files)
  /// if let (gaps, count) = feature.restoredShapeGaps { print(gaps.map(\.path), count) }
  /// ```
  public var restoredShapeGaps: (gaps: [RestoredShapeGap], count: Int)? {
    queue.access { $1.restoredShapeGaps }
  }

  /// After the last `swap`: where the state is not shaped as the new code's `initial_state()`
  /// gives it (a field added to it, that the state kept from the old code lacks), after the new
  /// code's `migrate(state)`; nil where it is, or before a swap.
  ///
  /// ```swift
  /// try feature.swap(toSource: newSource)
  /// if let (gaps, _) = feature.reloadedShapeGaps { print(gaps.map(\.path)) }  // ["filter"]
  /// ```
  public var reloadedShapeGaps: (gaps: [RestoredShapeGap], count: Int)? {
    queue.access { $1.reloadedShapeGaps }
  }

  /// What is wrong with the last `swap`'s `initial_state()`, when a run of the new code could
  /// not start from it (`initial_state() fails now: ...`); nil when nothing is.
  public var initialStateProblem: String? { queue.access { $1.initialStateProblem } }

  /// Whether the last `swap`'s `initial_state()` gives another state than the old code's did:
  /// the state goes on as it was, so a host says so.
  public var initialStateChanged: Bool { queue.access { $1.initialStateChanged } }

  /// Bytes the feature's VM holds after a full collection: the state, its proxies, the code.
  public func memoryInUse() -> Int {
    queue.access { vm, _ in
      vm.collectGarbage()
      return vm.memoryInUse
    }
  }
}

extension LuaFeature {
  /// A hash of the code of the functions in `value` (what a reducer returned as its effect: the
  /// body of an `effect.run`), each by `LuaVM.codeHash`, at its place in `value`; nil when it
  /// holds none. An effect's description writes a function as `"<function>"`: a reload that
  /// changed only what a coroutine sends left it the same. Comparable within one process.
  public func codeHash(ofFunctionsIn value: LuaValue) -> Int? {
    // Most actions return no effect: no walk, and no wait for the VM.
    switch value {
    case .table, .function: break
    default: return nil
    }
    var found = false
    let coded = queue.access { (vm, _) -> LuaValue in
      value.mappingScalars { scalar in
        guard case let .function(reference) = scalar else { return scalar }
        found = true
        let code = vm.codeHash(of: reference).map { String($0, radix: 16) } ?? "?"
        return .string(LuaString("<function \(code)>"))
      }
    }
    return found ? coded.hashValue : nil
  }
}
