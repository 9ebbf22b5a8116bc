import CLua
import LuaSupport

/// Transactions over a table, for reducers whose state lives in Lua (see `Transaction.c` and
/// `docs/transactions.md`).
///
/// A reducer is called with the *proxy* of its state: reads go through to the real tables,
/// writes are applied at once and journaled as (table, key, old value). If the call fails, the
/// journal is rolled back and the state is exactly what it was; if it succeeds, the host
/// commits. Either way the cost is proportional to what the reducer touched, never to the
/// size of the state. Outside a transaction state tables are read-only, and no value Lua code
/// can reach writes them around the journal.
extension LuaVM {
  /// What a write to a state table outside a transaction raises, after the Lua line: the
  /// embedder says why its state is read-only there ("state changes only in reduce", say).
  /// LuaKit's own words otherwise: "state tables are read-only outside a transaction".
  public func setStateReadOnlyMessage(_ message: String) {
    lk_set_read_only_message(L, message)
  }

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

  /// The host's write to the state behind `proxy` (from `transactionalProxy(of:)`): `value`
  /// into the field `key`, or, when `key` is nil, as the whole state (which must be a table;
  /// the state table is refilled in place, so the proxy stays bound to it). Not journaled:
  /// it is not an action.
  public func writeState(
    _ value: LuaValue, at key: LuaValue? = nil, through proxy: LuaReference
  ) throws(LuaError) {
    drainReleases()
    try stack.guarded { () throws(LuaError) in
      try stack.push(proxy, in: self)
      guard lk_push_proxied_table(L, -1) != 0 else {
        throw .conversion(path: "state", message: "expected a state's proxy, got \(proxy.typeName)")
      }
      lk_pop(L, 1)
      let keyIndex: Int32
      if let key {
        do throws(LuaError) { try stack.push(key, in: self) } catch {
          throw error.rooted(at: "key")
        }
        keyIndex = stack.top
      } else {
        guard value.tableValue != nil else {
          throw .conversion(path: "state", message: "expected a table, got \(value.typeName)")
        }
        keyIndex = 0
      }
      do throws(LuaError) { try stack.push(value, in: self) } catch {
        throw error.rooted(at: "state")
      }
      let status = lk_state_write(L, -(keyIndex == 0 ? 2 : 3), keyIndex, -1)
      guard status == LUA_OK else { throw takeError(status: status) }
    }
  }

  /// Calls `function(state, action, context)` of `call` in a new transaction and returns its
  /// first result; the caller keeps the references `call` was made from alive.
  ///
  /// `state` is a proxy from `transactionalProxy(of:)`. The transaction opens first (so a
  /// failure from here on never touches what earlier transactions committed), then the argument
  /// is pushed and, for a call made with a tag, checked: a string `s` is passed as
  /// `{ [tag] = s }`, and anything but a table with a string under the tag is an error
  /// (`path` "argument") that calls nothing. If the call fails, the transaction is rolled back
  /// before the error is thrown; if it succeeds, the transaction stays open until
  /// `commitTransaction()` or `rollbackTransaction()`.
  public func callTransaction(
    _ call: LuaTransactionCall, argument: LuaValue
  ) throws(LuaError) -> LuaValue {
    try callTransaction(
      call,
      pushingArgument: { (stack) throws(LuaError) -> Bool in
        guard let tag = call.tagKey else {
          try stack.push(argument, in: self)
          return false
        }
        return try stack.push(argument, in: self, findingTag: tag)
      })
  }

  /// `callTransaction(_:argument:)` with an argument Swift pushes itself (an `Encodable`
  /// marshalled straight onto the stack, say).
  public func callTransaction(
    _ call: LuaTransactionCall, argument: LuaArgument
  ) throws(LuaError) -> LuaValue {
    try callTransaction(
      call,
      pushingArgument: { (stack) throws(LuaError) -> Bool in
        try argument.push(onto: stack, in: self)
        return false
      })
  }

  /// `callTransaction(_:argument:)` with a table pushed field by field (a typed action, say):
  /// nothing is allocated on the way but what Lua allocates for the table. With `setsTag`, the
  /// writer promises to set the call's tag field to a string, last (so no field of its own can
  /// replace it), and the table is not checked for it.
  public func callTransaction(
    _ call: LuaTransactionCall, table argument: some LuaTableConvertible, setsTag: Bool = false
  ) throws(LuaError) -> LuaValue {
    try callTransaction(
      call,
      pushingArgument: { (stack) throws(LuaError) -> Bool in
        try stack.push(table: argument, in: self)
        return setsTag
      })
  }

  /// `push` pushes the argument and says whether it is known to be tagged already (then it is
  /// not checked again).
  @inline(__always)
  private func callTransaction(
    _ call: LuaTransactionCall, pushingArgument push: (LuaStack) throws(LuaError) -> Bool
  ) throws(LuaError) -> LuaValue {
    drainReleases()
    do throws(LuaError) {
      return try stack.guarded { () throws(LuaError) -> LuaValue in
        lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(call.slots.function))
        lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(call.slots.state))
        // Open before anything can fail, so a failure never touches what earlier ones committed
        // (the two reads above cannot fail), on the state's root.
        lk_transaction_begin(L, call.slots.state)
        let tagged: Bool
        do throws(LuaError) { tagged = try push(stack) } catch {
          throw error.rooted(at: "argument")
        }
        if !tagged, call.slots.tag != 0, lk_normalize_tagged(L, -1, call.slots.tag) == 0 {
          lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(call.slots.tag))
          let tag = stack.errorMessage(at: -1)
          throw .conversion(
            path: "argument", message: "expected a table with a string \(tag), or a string")
        }
        lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(call.slots.context))
        try callProtected(arguments: 3, results: 1)
        try checkStateShape(call.slots.state)
        do throws(LuaError) { return try stack.value(at: -1, in: self) } catch {
          throw error.rooted(at: "result #1")
        }
      }
    } catch {
      rollbackTransaction()
      throw error
    }
  }

  /// Calls `function(state)` in a new transaction (a migration, say), with no action: rolled
  /// back if it fails, open until committed or rolled back if it succeeds.
  public func callTransaction(_ function: LuaReference, state: LuaReference) throws(LuaError) {
    drainReleases()
    lk_transaction_begin(L, state.slot)
    do throws(LuaError) {
      try stack.guarded { () throws(LuaError) in
        try stack.push(function, in: self)
        try stack.push(state, in: self)
        try callProtected(arguments: 1, results: 0)
        try stack.push(state, in: self)
        try checkStateShape(at: -1)
      }
    } catch {
      rollbackTransaction()
      throw error
    }
  }

  /// Fails the open transaction's call (the caller rolls back) when it left its state out of
  /// shape: more than 200 levels deep, or a table inside itself (see `StateShape.c`).
  @inline(__always)
  private func checkStateShape(_ stateSlot: Int32) throws(LuaError) {
    guard shapeUnchecked.pointee != 0 else { return }  // most actions: a load, no call
    lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(stateSlot))
    try checkStateShape(at: -1)
  }

  private func checkStateShape(at index: Int32) throws(LuaError) {
    guard shapeUnchecked.pointee != 0 else { return lk_pop(L, 1) }
    let status = lk_transaction_check_shape(L, index)
    guard status == LUA_OK else { throw takeError(status: status) }
    lk_pop(L, 1)
  }

  /// Undoes every write of the open transaction, newest first, and closes it. It runs no Lua
  /// code, so it works even after the instruction budget or the memory cap stopped the
  /// reducer. Without an open transaction it does nothing.
  public func rollbackTransaction() {
    _ = lk_transaction_rollback(L)
  }

  /// Closes the open transaction, keeping its writes: state tables are read-only again.
  public func commitTransaction() {
    lk_transaction_commit(L)
  }

  /// Runs `body` with state tables read-only, even inside an open transaction: Lua code the
  /// host calls between a reducer and its commit (an effect's action wrapper) reads the state
  /// but cannot write it, as it could not a moment later. Its reads cost what reads between
  /// actions cost.
  public func withStateReadOnly<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    let wasOpen = lk_transaction_close_writes(L)
    defer { lk_transaction_reopen_writes(L, wasOpen) }
    return try body()
  }

  /// Whether the open (or last) transaction wrote to its state.
  public var transactionWrote: Bool { lk_transaction_wrote(L) != 0 }

  /// A Lua function that makes an empty *journaled table*: not part of any state, but written
  /// only inside transactions and rolled back with them. Libraries keep the bookkeeping that
  /// must stay true to the state in such tables (which effects of a list are running, say).
  public func journaledTableFunction() -> LuaReference {
    stack.guarded { () -> LuaReference in
      lk_push_journaled_table_function(L)
      return makeReference(at: -1, L)
    }
  }

  /// A module for libraries that keep bookkeeping beside a state: `table()` (see
  /// `journaledTableFunction`), and what state tables held when the open transaction began,
  /// `was_set(t, key)` and `had_element(t, key, field, value)` (a composition that finds a
  /// child gone can tell whether this very action removed it).
  public func journalModule() -> LuaReference {
    stack.guarded { () -> LuaReference in
      lk_push_journal_module(L)
      return makeReference(at: -1, L)
    }
  }

  /// Empties every table the journal module keeps for libraries (`kept`: which children have
  /// effects running), as the host writes a state, not journaled: for a host that has cancelled
  /// every effect and set the state anew (time travel), so that no library cancels what no
  /// longer runs. Throws only when memory runs out.
  ///
  /// ```swift
  /// try vm.clearJournalKeptTables()
  /// ```
  public func clearJournalKeptTables() throws(LuaError) {
    drainReleases()
    try stack.guarded { () throws(LuaError) in
      let status = lk_journal_clear_kept(L)
      guard status == LUA_OK else { throw takeError(status: status) }
    }
  }

  /// A copy of what the journal module's `kept` tables hold, for `restoreJournalKeptTables`: a
  /// host that replays actions to check them, while the effects the record is of run on, puts
  /// it back after.
  ///
  /// ```swift
  /// let kept = try vm.copyJournalKeptTables()
  /// try vm.clearJournalKeptTables()
  /// // ... actions replayed ...
  /// try vm.restoreJournalKeptTables(kept)
  /// ```
  public func copyJournalKeptTables() throws(LuaError) -> LuaReference {
    drainReleases()
    return try stack.guarded { () throws(LuaError) -> LuaReference in
      let status = lk_journal_copy_kept(L)
      guard status == LUA_OK else { throw takeError(status: status) }
      return makeReference(at: -1, L)
    }
  }

  /// Puts what `copyJournalKeptTables` copied back into the `kept` tables (one made since, and
  /// not in the copy, is emptied).
  public func restoreJournalKeptTables(_ copy: LuaReference) throws(LuaError) {
    drainReleases()
    try stack.guarded { () throws(LuaError) in
      try stack.push(copy, in: self)
      let status = lk_journal_restore_kept(L, -1)
      guard status == LUA_OK else { throw takeError(status: status) }
    }
  }

}

/// The function, state and context of a transaction, checked once to belong to one VM: the
/// shape of a call made again and again (a feature's step). It holds their registry slots, not
/// the references, so that a call reads three integers and counts no references; whoever makes
/// it keeps the references alive as long as it is used.
///
/// With a `tag`, each argument must be a *tagged table*, a table with a string under the field
/// `tag`, or a bare string, which is passed as `{ [tag] = s }`: checked in C before the call,
/// at the cost of one table lookup.
public struct LuaTransactionCall: Sendable {
  /// Registry slots; `tag` is 0 for a call without one. Only integers, so that reading a call
  /// counts no references.
  let slots: (function: Int32, state: Int32, context: Int32, tag: Int32)
  /// The tag's name, for a `LuaValue` argument's keys to be compared with as they are pushed;
  /// nil without a tag, or for a name too long to keep inline (looked up as a field instead).
  let tagKey: LuaTagKey?

  /// `tag`, when given, is a reference to the tag field's name (a string); like the others, the
  /// caller keeps it alive.
  ///
  /// ```swift
  /// let state = try vm.reference(to: ["count": 0])
  /// let proxy = try vm.transactionalProxy(of: state)
  /// let add = try vm.load("local s, a = ... s.count = s.count + a.by", chunkName: "add")
  /// let context = try vm.reference(to: [:])
  /// let call = try LuaTransactionCall(function: add, state: proxy, context: context, in: vm)
  /// try withExtendedLifetime((state, proxy, add, context)) {
  ///   _ = try vm.callTransaction(call, argument: ["by": 2])
  ///   vm.commitTransaction()
  /// }
  /// ```
  public init(
    function: LuaReference, state: LuaReference, context: LuaReference,
    tag: LuaReference? = nil, in vm: LuaVM
  ) throws(LuaError) {
    for reference in [function, state, context] + (tag.map { [$0] } ?? [])
    where reference.owner !== vm.releaseQueue {
      throw .conversion(
        path: "", message: reference.ofAnotherVM)
    }
    slots = (function.slot, state.slot, context.slot, tag?.slot ?? 0)
    tagKey =
      tag.flatMap { tag in
        vm.stack.guarded { () -> LuaTagKey? in
          lua_rawgeti(vm.L, LK_REGISTRYINDEX, lua_Integer(tag.slot))
          guard lua_type(vm.L, -1) == LUA_TSTRING else { return nil }
          return vm.stack.withBytes(at: -1) { LuaTagKey(slot: tag.slot, name: $0) }
        }
      }
  }

}

/// A tag field's name as plain integers (reading it counts no references): its registry slot,
/// and its bytes when they fit in a `LuaString`'s inline form (15). A key of a pushed table
/// that is this string is pushed as the name kept in the registry, which Lua need not hash and
/// look up among its interned strings (a third of what pushing the key cost), and is known to
/// be the tag without a lookup.
struct LuaTagKey: Sendable {
  let slot: Int32
  private let words: (UInt64, UInt64)

  init?(slot: Int32, name: UnsafeRawBufferPointer) {
    guard let words = LuaString.inlineWords(name) else { return nil }
    self.slot = slot
    self.words = words
  }

  @inline(__always)
  func isName(_ key: LuaString) -> Bool { key.isInline(words) }
}
