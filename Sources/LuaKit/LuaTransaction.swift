import CLua
import LuaSupport

/// Transactions over a table, for reducers whose state lives in Lua (see `Transaction.c`).
///
/// A reducer is called with the *proxy* of its state: reads go through to the real tables,
/// writes are applied at once and journaled as (table, key, old value). If the call fails, the
/// host rolls the journal back and the state is exactly what it was; if it succeeds, the
/// journal is forgotten when the next transaction starts. Either way the cost is proportional
/// to what the reducer touched, never to the size of the state.
extension LuaVM {
  /// The proxy a reducer gets instead of `table` (the same proxy every time it is asked).
  public func transactionalProxy(of table: LuaReference) throws(LuaError) -> LuaReference {
    drainReleases()
    return try stack.guarded { () throws(LuaError) -> LuaReference in
      try stack.push(table, in: self)
      guard lua_type(L, -1) == LUA_TTABLE else {
        let found = String(cString: lua_typename(L, lua_type(L, -1)))
        throw .conversion(path: "state", message: "expected a table, got \(found)")
      }
      lk_push_transactional_proxy(L, -1)
      return makeReference(at: -1, L)
    }
  }

  /// Tells `proxy` (from `transactionalProxy(of:)`) that the host wrote to its table directly,
  /// not through it: a flat table that stopped being flat must stop reading without a
  /// metamethod (see `Transaction.c`).
  public func refreshTransactionalProxy(_ proxy: LuaReference) throws(LuaError) {
    drainReleases()
    try stack.guarded { () throws(LuaError) in
      try stack.push(proxy, in: self)
      lk_refresh_transactional_proxy(L, -1)
    }
  }

  /// Calls `function(state, action, context)` of `call` as a transaction and returns its first
  /// result; the caller keeps the references `call` was made from alive.
  ///
  /// `state` is a proxy from `transactionalProxy(of:)`. The action is checked first: a string
  /// `s` is passed as `{ type = s }`, and anything but a table with a string `type` is an
  /// error that calls nothing. On an error, call `rollbackTransaction()`.
  public func callTransaction(
    _ call: LuaTransactionCall, action: LuaValue
  ) throws(LuaError) -> LuaValue {
    drainReleases()
    return try stack.guarded { () throws(LuaError) -> LuaValue in
      lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(call.slots.function))
      lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(call.slots.state))
      do throws(LuaError) { try stack.push(action, in: self) } catch {
        throw error.rooted(at: "action")
      }
      guard lk_normalize_action(L, -1) != 0 else {
        lk_transaction_commit(L)  // nothing ran: the previous transaction is settled too
        throw .runtime(message: Self.malformedActionMessage(action), traceback: "")
      }
      lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(call.slots.context))
      let status = lk_transaction_pcall(L, 3, 1)
      guard status == LUA_OK else { throw takeError(status: status) }
      do throws(LuaError) { return try stack.value(at: -1, in: self) } catch {
        throw error.rooted(at: "result #1")
      }
    }
  }

  /// Calls `function(state)` as a transaction (a migration, say), with no action.
  public func callTransaction(_ function: LuaReference, state: LuaReference) throws(LuaError) {
    drainReleases()
    try stack.guarded { () throws(LuaError) in
      try stack.push(function, in: self)
      try stack.push(state, in: self)
      let status = lk_transaction_pcall(L, 1, 0)
      guard status == LUA_OK else { throw takeError(status: status) }
    }
  }

  /// Undoes every write of the current transaction, newest first. It runs no Lua code, so it
  /// works even after the instruction budget or the memory cap stopped the reducer.
  public func rollbackTransaction() {
    _ = lk_transaction_rollback(L)
  }

  /// Whether the current (or last) transaction wrote to its state.
  public var transactionWrote: Bool { lk_transaction_wrote(L) != 0 }

  static func malformedActionMessage(_ action: LuaValue) -> String {
    let found: String
    switch action {
    case let .table(table): found = "a table whose type is \(table["type"].luaTypeName)"
    default: found = action.luaTypeName
    }
    return "action: expected an action (a table with a string type, or a string), got \(found)"
  }
}

/// The function, state and context of a transaction, checked once to belong to one VM: the
/// shape of a feature's step, called for every action. It holds their registry slots, not the
/// references, so that a call reads three integers and counts no references; whoever makes it
/// keeps the references alive as long as it is used.
public struct LuaTransactionCall: Sendable {
  let slots: (function: Int32, state: Int32, context: Int32)

  public init(
    function: LuaReference, state: LuaReference, context: LuaReference, in vm: LuaVM
  ) throws(LuaError) {
    for reference in [function, state, context] where reference.owner !== vm.releaseQueue {
      throw .conversion(
        path: "", message: "\(reference) belongs to another Lua VM and cannot be used here")
    }
    slots = (function.slot, state.slot, context.slot)
  }
}

extension LuaValue {
  /// The name Lua's `type()` gives this value.
  var luaTypeName: String {
    switch self {
    case .integer, .number: return "number"
    default: return typeName
    }
  }
}
