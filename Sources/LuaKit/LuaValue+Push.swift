import CLua
import LuaSupport

extension LuaStack {
  /// Pushes a Swift-side value. Arrays get the VM's array marker so they stay arrays when empty.
  ///
  /// One Lua table per table identity (`LuaTableIdentity`): a table the value holds at two
  /// places is one Lua table at both, as it was in the Lua it was read from, so pushing a
  /// snapshot back (a restored state, a step of time travel) keeps what was shared shared, and
  /// costs its distinct tables, not its paths.
  func push(_ value: LuaValue, in vm: LuaVM) throws(LuaError) {
    var tagged = false
    _ = try pushValue(value, in: vm, tag: nil, tagged: &tagged)
  }

  /// `push`, returning how many tables deep what it pushed is (0 for no table).
  func pushTable(_ value: LuaValue, in vm: LuaVM) throws(LuaError) -> Int {
    var tagged = false
    return try pushValue(value, in: vm, tag: nil, tagged: &tagged)
  }

  /// `push`, saying whether the value is a table with a string under the field `tag`: seen as
  /// its keys go by, so that the call need not look the field up again.
  func push(_ value: LuaValue, in vm: LuaVM, findingTag tag: LuaTagKey) throws(LuaError) -> Bool {
    var tagged = false
    _ = try pushValue(value, in: vm, tag: tag, tagged: &tagged)
    return tagged
  }

  private func pushValue(
    _ value: LuaValue, in vm: LuaVM, tag: LuaTagKey?, tagged: inout Bool
  ) throws(LuaError) -> Int {
    let top = lua_gettop(L)
    do throws(LuaError) {
      return try pushValueInDictionaryOrder(value, in: vm, tag: tag, tagged: &tagged)
    } catch {
      guard case .conversion = error, case .table = value else { throw error }
      lua_settop(L, top)
      try pushAgainInKeyOrder(value, in: vm, firstError: error)
    }
  }

  /// A refused push made again walking each table's fields in key order, so that the error
  /// names the first bad place in that order: a dictionary's order is seeded per process (and
  /// per storage), and a value refused at two places was refused at one or the other from one
  /// run to the next. Only a refusal pays for it. Throws the refusal.
  @inline(never)
  private func pushAgainInKeyOrder(
    _ value: LuaValue, in vm: LuaVM, firstError: LuaError
  ) throws(LuaError) -> Never {
    let top = lua_gettop(L)
    defer { lua_settop(L, top) }
    guard reserve(5) else { throw firstError }
    lua_createtable(L, 0, 0)
    let pushing = LuaPushing(made: lua_gettop(L), sharing: value.sharedTables, inKeyOrder: true)
    var ignored = false
    _ = try pushReserved(value, in: vm, depth: 0, tag: nil, tagged: &ignored, pushing)
    throw firstError  // no refusal in key order: cannot be, but the first stands
  }

  private func pushValueInDictionaryOrder(
    _ value: LuaValue, in vm: LuaVM, tag: LuaTagKey?, tagged: inout Bool
  ) throws(LuaError) -> Int {
    guard reserve(5) else { throw .conversion(path: "", message: "nesting too deep") }
    // Only a table that holds tables can meet one twice: an action of scalars (the hot path)
    // and a snapshot known to be a tree go straight to the push, with no bookkeeping to make
    // or free (a set and a dictionary made and released on every push cost an action 180
    // instructions and three releases).
    if case let .table(table) = value, !table.identity.isTree, table.holdsTables {
      return try pushSharing(value, in: vm, tag: tag, tagged: &tagged)
    }
    return try pushReserved(value, in: vm, depth: 0, tag: tag, tagged: &tagged, nil)
  }

  /// `pushValue` of a table that may reach a table twice: only the tables met twice are kept
  /// to be pushed again (a look over the value's tables costs less than a Lua table of all of
  /// them).
  @inline(never)
  private func pushSharing(
    _ value: LuaValue, in vm: LuaVM, tag: LuaTagKey?, tagged: inout Bool
  ) throws(LuaError) -> Int {
    let sharing = value.sharedTables
    guard !sharing.isEmpty else {
      return try pushReserved(value, in: vm, depth: 0, tag: tag, tagged: &tagged, nil)
    }
    lua_createtable(L, 0, Int32(clamping: sharing.count))  // each shared table, by identity
    let pushing = LuaPushing(made: lua_gettop(L), sharing: sharing)
    let height = try pushReserved(value, in: vm, depth: 0, tag: tag, tagged: &tagged, pushing)
    lk_remove(L, pushing.made)
    return height
  }

  /// `push`, once room is made: each table makes room for its key and value (the hot path of
  /// an action is a table of scalars, one check for it all). Returns the height of what it
  /// pushed: 0 for a scalar, 1 for a table of scalars, one more than its tallest table else.
  ///
  /// With a `tag` (only for the value itself, not its nested tables), `tagged` is set when a
  /// key pushed is that name and its value a string.
  private func pushReserved(
    _ value: LuaValue, in vm: LuaVM, depth: Int, tag: LuaTagKey?, tagged: inout Bool,
    _ pushing: LuaPushing?
  ) throws(LuaError) -> Int {
    if pushScalar(value) { return 0 }
    switch value {
    case .nil, .boolean, .integer, .number, .string: return 0  // pushed above
    case let .table(table):
      let slot = lua_Integer(bitPattern: table.identity.rawValue)
      var shared: LuaPushing? = nil
      if let pushing, pushing.sharing.contains(table.identity) { shared = pushing }
      if let shared, lua_rawgeti(L, shared.made, slot) == LUA_TTABLE {
        let height = shared.heights[table.identity] ?? 1
        // As a snapshot counts it: its deepest table, at this place.
        guard depth + height <= LuaValue.maximumDepth else {
          throw .conversion(path: "", message: LuaValue.tooDeepMessage)
        }
        return height
      }
      if shared != nil { lua_settop(L, -2) }  // not made yet: what rawgeti pushed
      guard depth < LuaValue.maximumDepth else {  // as a snapshot stops: the same data both ways
        throw .conversion(path: "", message: LuaValue.tooDeepMessage)
      }
      let sequenceCount = table.kind == .array ? table.count : 0
      lua_createtable(
        L, Int32(clamping: sequenceCount), Int32(clamping: table.count - sequenceCount))
      guard reserve(3) else { throw .conversion(path: "", message: "nesting too deep") }
      var height = 1
      // By index rather than `for (key, element) in`: the iterator retained and released the
      // dictionary's storage on every push. (Each key and value read is a copy: a retain and a
      // release of a string longer than LuaString keeps inline.) A refused push made again goes
      // through the indices in key order (`pushAgainInKeyOrder`).
      let entries = table.entries
      let order = pushing?.inKeyOrder == true ? Self.indicesInKeyOrder(of: entries) : nil
      var index = order?.first ?? entries.startIndex
      var position = 0
      while index != entries.endIndex {
        let key = entries.keys[index], element = entries.values[index]
        if let order {
          position += 1
          index = position < order.count ? order[position] : entries.endIndex
        } else {
          entries.formIndex(after: &index)
        }
        if case let .number(number) = key, number.isNaN {
          throw .conversion(path: "", message: "a table key cannot be NaN")
        }
        if case .nil = key {  // Lua would raise, and outside a protected call that aborts
          throw .conversion(path: "", message: "a table key cannot be nil")
        }
        let isTag: Bool
        if let tag, case let .string(name) = key, tag.isName(name) {
          lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(tag.slot))
          isTag = true
        } else {
          if !pushScalar(key) {
            var ignored = false
            height = max(
              height,
              1
                + (try pushReserved(
                  key, in: vm, depth: depth + 1, tag: nil, tagged: &ignored, pushing)))
          }
          isTag = false
        }
        if !pushScalar(element) {  // the fields of an action are scalars: no call for them
          do throws(LuaError) {
            var ignored = false
            height = max(
              height,
              1
                + (try pushReserved(
                  element, in: vm, depth: depth + 1, tag: nil, tagged: &ignored, pushing)))
          } catch {
            throw error.under(LuaPath.component(key))
          }
        }
        if isTag, lua_type(L, -1) == LUA_TSTRING { tagged = true }
        lua_rawset(L, -3)
      }
      if table.kind == .array { vm.setArrayMarker(on: -1, L) }
      if let shared {
        lua_pushvalue(L, -1)
        lua_rawseti(L, shared.made, slot)
        if height > 1 { shared.heights[table.identity] = height }
      }
      return height
    case let .function(reference), let .other(reference):
      try push(reference, in: vm)
      return 0
    }
  }

  /// The indices of `entries`, their keys in key order.
  @inline(never)
  private static func indicesInKeyOrder(
    of entries: [LuaValue: LuaValue]
  ) -> [Dictionary<LuaValue, LuaValue>.Index] {
    entries.indices.sorted { LuaValue.keyOrder(entries.keys[$0], entries.keys[$1]) }
  }

  /// Pushes `value` if it is neither a table nor a reference, saying whether it did.
  @inline(__always)
  private func pushScalar(_ value: LuaValue) -> Bool {
    switch value {
    case .nil: lua_pushnil(L)
    case let .boolean(flag): lua_pushboolean(L, flag ? 1 : 0)
    case let .integer(integer): lua_pushinteger(L, lua_Integer(integer))
    case let .number(number): lua_pushnumber(L, number)
    case let .string(string): string.withUnsafeBytes { push(bytes: $0) }
    case .table, .function, .other: return false
    }
    return true
  }

  func push(_ reference: LuaReference, in vm: LuaVM) throws(LuaError) {
    guard reference.owner === vm.releaseQueue else {
      if reference.isNull {  // one value in every VM: `json.null` is this VM's too
        lua_pushlightuserdata(L, nil)
        return
      }
      throw .conversion(
        path: "", message: reference.ofAnotherVM)
    }
    lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(reference.slot))
  }
}

/// What one push of a value that shares tables made so far: the Lua table of each table it
/// holds at several places (`sharing`), by identity, in the table at stack index `made`, and
/// the height of each of those that holds tables. (A push that shares nothing has none.)
private final class LuaPushing {
  let made: Int32
  let sharing: Set<LuaTableIdentity>
  var heights: [LuaTableIdentity: Int] = [:]
  /// Each table's fields pushed in key order (a refused push made again).
  let inKeyOrder: Bool

  init(made: Int32, sharing: Set<LuaTableIdentity>, inKeyOrder: Bool = false) {
    self.made = made
    self.sharing = sharing
    self.inKeyOrder = inKeyOrder
  }
}
