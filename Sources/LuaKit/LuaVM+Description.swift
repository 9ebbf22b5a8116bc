import CLua
import LuaSupport

extension LuaVM {
  /// Writes the value behind `reference` as `LuaValue.description` would write its snapshot
  /// (a table reached twice labelled, at most `limit` bytes), read table by table from Lua: no
  /// snapshot is made, so describing a large state costs its walk, not a copy of it. A table
  /// that contains itself, which a snapshot refuses, is labelled like any table reached twice.
  /// `rootName` starts the path of a conversion error.
  public func writeDescription(
    of reference: LuaReference, rootName: String = "value", limit: Int = LuaValue.descriptionLimit,
    to output: inout some TextOutputStream
  ) throws(LuaError) {
    var text = LuaText(limit: limit)
    try stack.guarded { () throws(LuaError) in
      do throws(LuaError) {
        try stack.push(reference, in: self)
        var writer = LuaDescriptionWriter(vm: self, L: L)
        try writer.findShared(at: stack.absolute(-1))
        try writer.write(at: stack.absolute(-1), depth: 0, to: &text)
      } catch {
        throw error.rooted(at: rootName)
      }
    }
    output.write(text.string)
  }
}

extension LuaVM {
  /// How many tables deep the walk that finds a description's shared tables goes on the Lua
  /// stack; a table met deeper waits in a Lua table until the walk comes back up.
  static let deepestDescriptionWalk = 4_096
}

/// `LuaValuePrinter`'s one-line form over tables in Lua.
private struct LuaDescriptionWriter {
  unowned(unsafe) let vm: LuaVM
  let L: OpaquePointer
  /// Tables met so far by `findShared` (in memory mapped for it: see `LuaAddressSet`), and
  /// those it met twice.
  var seen = LuaAddressSet()
  var shared: Set<UnsafeRawPointer> = []
  /// The label of each shared table written so far.
  var labels: [UnsafeRawPointer: Int] = [:]

  private var stack: LuaStack { LuaStack(L) }

  init(vm: LuaVM, L: OpaquePointer) {
    self.vm = vm
    self.L = L
  }

  /// Finds the tables reached twice from the value at `index`, looking into each table once,
  /// however deep. The walk goes depth first, each table it is inside and its key on the Lua
  /// stack, so what it holds besides `seen` is as deep as the value, not as wide (a state of
  /// 100,000 todos had them all wait in a Lua table, 2 MB left as garbage after the walk).
  /// Past `LuaVM.deepestDescriptionWalk` levels the tables still to look into wait in a Lua
  /// table, so no depth is too deep.
  mutating func findShared(at index: Int32) throws(LuaError) {
    guard lua_type(L, index) == LUA_TTABLE else { return }
    try stack.guarded { () throws(LuaError) in
      guard stack.reserve(8) else { throw .conversion(path: "", message: "nesting too deep") }
      var pending: Int32 = 0  // the Lua table of tables to look into later, once made
      var waiting: lua_Integer = 0
      // The tables being looked into, by the stack index of each (its key above it).
      var frames: [Int32] = []
      // Meets the table at `slot`, if it is one: the first time, its real table goes on top
      // and is entered (or, too deep, waits); after that it is shared.
      func meet(_ slot: Int32) {
        guard lua_type(L, slot) == LUA_TTABLE else { return }
        if lk_push_proxied_table(L, slot) == 0 { lua_pushvalue(L, slot) }  // the real table
        guard seen.insert(lua_topointer(L, -1)!) else {
          shared.insert(lua_topointer(L, -1)!)
          return lua_settop(L, -2)
        }
        if frames.count < LuaVM.deepestDescriptionWalk, stack.reserve(8) {
          frames.append(lua_gettop(L))
          return lua_pushnil(L)  // the key to go on from
        }
        if pending == 0 {  // made below the frames, so that leaving them leaves it
          let below = frames.first ?? lua_gettop(L)
          lua_createtable(L, 16, 0)
          lua_rotate(L, below, 1)
          pending = below
          for position in frames.indices { frames[position] += 1 }
        }
        waiting += 1
        lua_rawseti(L, pending, waiting)
      }
      meet(index)
      while true {
        while !frames.isEmpty {
          let current = frames.count - 1
          lua_settop(L, frames[current] + 1)  // the table and the key it goes on from
          if lk_next(L, frames[current]) == 0 {
            lua_settop(L, frames[current] - 1)
            frames.removeLast()
            continue
          }
          meet(frames[current] + 1)  // may move the frames up, making room below them
          meet(frames[current] + 2)
        }
        guard waiting > 0 else { break }
        lua_rawgeti(L, pending, waiting)
        lua_pushnil(L)
        lua_rawseti(L, pending, waiting)
        waiting -= 1
        frames.append(lua_gettop(L))
        lua_pushnil(L)
      }
    }
    seen = LuaAddressSet()  // not needed to write: its memory goes back to the system now
  }

  mutating func write(at index: Int32, depth: Int, to text: inout LuaText) throws(LuaError) {
    if text.isDone { return }
    guard lua_type(L, index) == LUA_TTABLE else {
      var printer = LuaValuePrinter(sharing: [])
      return printer.write(try stack.value(at: index, in: vm), depth: depth, to: &text)
    }
    try stack.guarded { () throws(LuaError) in
      var table = index
      if lk_push_proxied_table(L, index) != 0 { table = stack.absolute(-1) }
      try writeTable(at: table, depth: depth, to: &text)
    }
  }

  private mutating func writeTable(
    at table: Int32, depth: Int, to text: inout LuaText
  ) throws(LuaError) {
    guard stack.reserve(8) else { throw .conversion(path: "", message: "nesting too deep") }
    let identity = lua_topointer(L, table)!
    if shared.contains(identity) {
      if let label = labels[identity] { return text.append("<\(label)>") }
      labels[identity] = labels.count + 1
      text.append("<\(labels.count)>")
    }
    var length: lua_Integer = 0
    while lua_rawgeti(L, table, length + 1) != LUA_TNIL {
      lua_settop(L, -2)
      length += 1
    }
    lua_settop(L, -2)
    var others: [LuaValue] = []
    // Keys that are tables, kept as themselves: a snapshot of one is another table (its value
    // not found under it), and one may hold a cycle. Written after the others, as met.
    var tableKeys: [LuaReference] = []
    lua_pushnil(L)
    while lk_next(L, table) != 0 {
      defer { lua_settop(L, -2) }
      if lua_isinteger(L, -2) != 0, case let key = lua_tointegerx(L, -2, nil), key >= 1,
        key <= length
      {
        continue
      }
      if lua_type(L, -2) == LUA_TTABLE {
        tableKeys.append(vm.makeReference(at: -2, L))
        continue
      }
      others.append(try stack.value(at: -2, in: vm))
    }
    if length == 0, others.isEmpty, tableKeys.isEmpty { return text.append("{}") }
    guard depth < LuaValue.maximumDepth else {
      return text.append("{ --[[ \(LuaValue.tooDeepMessage) ]] }")
    }
    text.append("{ ")
    if others.isEmpty, tableKeys.isEmpty {  // a sequence
      for position in 1...length {
        if text.isDone { return }
        if position > 1 { text.append(", ") }
        lua_rawgeti(L, table, position)
        try write(at: stack.absolute(-1), depth: depth + 1, to: &text)
        lua_settop(L, -2)
      }
    } else {
      var keys = (0..<length).map { LuaValue.integer(Int($0) + 1) } + others
      keys.sort(by: LuaValue.keyOrder)
      for (position, key) in keys.enumerated() {
        if text.isDone { return }
        if position > 0 { text.append(", ") }
        text.append(LuaValue.describeKey(key) + " = ")
        try stack.push(key, in: vm)
        lua_rawget(L, table)
        try write(at: stack.absolute(-1), depth: depth + 1, to: &text)
        lua_settop(L, -2)
      }
      for (position, key) in tableKeys.enumerated() {
        if text.isDone { return }
        if position > 0 || !keys.isEmpty { text.append(", ") }
        text.append("[")
        try stack.push(key, in: vm)
        try write(at: stack.absolute(-1), depth: depth + 1, to: &text)
        text.append("] = ")
        lua_rawget(L, table)
        try write(at: stack.absolute(-1), depth: depth + 1, to: &text)
        lua_settop(L, -2)
      }
    }
    text.append(" }")
  }
}
