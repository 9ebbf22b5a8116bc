import CLua
import LuaSupport

/// One Lua 5.4 state, owned by Swift: the safe layer over the C API.
///
/// The VM belongs to one isolation domain at a time (it is not `Sendable`; hand it over with
/// `sending`). Every call into Lua is protected and reports failures as `LuaError`; chunks load
/// in text mode only; the state closes when the VM is released, which frees all Lua memory.
public final class LuaVM {
  let L: OpaquePointer
  let releaseQueue = LuaReleaseQueue()
  /// The metatable that marks tables made from Swift arrays (so `[]` stays an array).
  private let arrayMarkerSlot: Int32
  private let arrayMarkerIdentity: UnsafeRawPointer
  /// `make_sandbox(print, find_module, preloaded)`, from the bootstrap chunk.
  private let sandboxFactorySlot: Int32
  /// Whether a write of the open transaction may have left the state out of shape, where the
  /// C side keeps it (`lk_transaction_shape_flag`): read after every action.
  let shapeUnchecked: UnsafePointer<Int32>

  /// Opens a Lua state under `limits`. It closes, freeing all its memory, when the VM is
  /// released. Throws when the state cannot be made.
  ///
  /// ```swift
  /// let vm = try LuaVM(limits: LuaLimits(instructions: 1_000_000))
  /// let results = try vm.evaluate("return 1 + 2")  // [3]
  /// ```
  public init(limits: LuaLimits = LuaLimits()) throws(LuaError) {
    guard let L = lk_newstate(limits.memory ?? 0) else { throw .memoryLimit(limit: 0) }
    self.L = L
    shapeUnchecked = lk_transaction_shape_flag(L)
    lua_createtable(L, 0, 2)
    LuaStack(L).push("array")
    lua_setfield(L, -2, "__name")
    LuaStack(L).push("luakit.array")
    lua_setfield(L, -2, "__metatable")
    arrayMarkerIdentity = lua_topointer(L, -1)!
    lk_set_array_marker(L, -1)  // the one metatable a table stored in a state may have
    arrayMarkerSlot = luaL_ref(L, LK_REGISTRYINDEX)
    guard sandboxBootstrap.push(L) == LUA_OK, lk_pcall(L, 0, 1) == LUA_OK
    else {
      let message = LuaStack(L).errorMessage(at: -1)
      lk_close(L)
      throw .runtime(message: "the sandbox failed to start: \(message)", traceback: "")
    }
    sandboxFactorySlot = luaL_ref(L, LK_REGISTRYINDEX)
    self.limits = limits
    lk_set_owner(L, Unmanaged.passUnretained(self).toOpaque())
    lk_set_memory_limit(L, limits.memory ?? 0)
    lk_set_instruction_limit(L, Int64(limits.instructions ?? 0))
    lk_set_time_limit(L, limits.seconds ?? 0)
  }

  deinit { lk_close(L) }

  /// The memory cap, the per-call instruction budget and time limit; all can change between
  /// calls.
  public var limits: LuaLimits {
    didSet {
      lk_set_memory_limit(L, limits.memory ?? 0)
      lk_set_instruction_limit(L, Int64(limits.instructions ?? 0))
      lk_set_time_limit(L, limits.seconds ?? 0)
    }
  }

  /// Whether the main thread counts instructions now: only while a call that ran long is in
  /// flight, never between calls (a count hook slows every instruction).
  var countsInstructionsNow: Bool { lk_main_thread_counts_instructions(L) != 0 }

  /// Bytes of memory the Lua state holds now.
  public var memoryInUse: Int { lk_memory_used(L) }

  /// Bytes the VM makes the process hold now: what Lua holds, plus the free blocks its
  /// allocator keeps for reuse. This is what the memory cap bounds.
  public var memoryHeld: Int { lk_memory_held(L) }

  /// Runs a full garbage collection.
  public func collectGarbage() {
    drainReleases()
    _ = lk_gc_collect(L)
  }

  /// Runs a full garbage collection and gives what it freed back to the system, rather than
  /// keeping it for the VM's next allocations: after a large structure became garbage once.
  public func collectGarbageAndReleaseMemory() {
    collectGarbage()
    lk_release_free_memory(L)
  }

  var stack: LuaStack { LuaStack(L) }

  /// Frees the registry slots of references that were dropped since the last entry.
  func drainReleases() {
    for slot in releaseQueue.drain() { luaL_unref(L, LK_REGISTRYINDEX, slot) }
  }

  // MARK: Loading

  /// Compiles `source` (text only: bytecode is refused) into a function. `chunkName` is how
  /// errors name the chunk: `counter.lua` gives `counter.lua:12: ...`. With a sandbox, the
  /// chunk's globals are the sandbox's environment.
  public func load(
    _ source: String, chunkName: String, in sandbox: LuaSandbox? = nil
  ) throws(LuaError) -> LuaReference {
    try load(source, chunkName: chunkName, globals: sandbox.map { .sandbox($0) } ?? .real)
  }

  /// `load` of source given as bytes, exactly as they are: what a person typed may be any bytes
  /// (Lua's own lexer takes any byte in a string literal), and a `String` would have replaced
  /// those that are not UTF-8.
  public func load(
    bytes source: [UInt8], chunkName: String, in sandbox: LuaSandbox? = nil
  ) throws(LuaError) -> LuaReference {
    try load(globals: sandbox.map { .sandbox($0) } ?? .real) {
      source.withUnsafeBytes { buffer in
        lk_loadtext(
          L, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), buffer.count,
          "@" + chunkName)
      }
    }
  }

  /// `load(bytes:)` for source held as a `LuaString` (a file's bytes, as `lua5.4` reads them).
  public func load(
    _ source: LuaString, chunkName: String, in sandbox: LuaSandbox? = nil
  ) throws(LuaError) -> LuaReference {
    try load(bytes: source.bytes, chunkName: chunkName, in: sandbox)
  }

  /// What a loaded chunk sees as its globals.
  enum ChunkGlobals {
    /// The VM's own global table (trusted code only).
    case real
    /// A sandbox's environment.
    case sandbox(LuaSandbox)
    /// A fresh empty table: the chunk can reach nothing (a data file).
    case empty
  }

  func load(
    _ source: String, chunkName: String, globals: ChunkGlobals
  ) throws(LuaError) -> LuaReference {
    var source = source
    return try load(globals: globals) {
      source.withUTF8 { buffer in
        buffer.withMemoryRebound(to: CChar.self) { chars in
          lk_loadtext(L, chars.baseAddress, chars.count, "@" + chunkName)
        }
      }
    }
  }

  /// The chunk `loadChunk` pushed (or the error it left), with `globals` as its `_ENV`.
  func load(
    globals: ChunkGlobals, _ loadChunk: () -> Int32
  ) throws(LuaError) -> LuaReference {
    drainReleases()
    return try stack.guarded { () throws(LuaError) -> LuaReference in
      let status = loadChunk()
      guard status == LUA_OK else {
        let message = stack.errorMessage(at: -1)
        if status == LUA_ERRSYNTAX {
          throw .syntax(message: message, incompleteInput: message.hasSuffix("<eof>"))
        }
        throw .runtime(message: message, traceback: "")
      }
      switch globals {  // a main chunk's only upvalue is _ENV
      case .real: break
      case let .sandbox(sandbox):
        try stack.push(sandbox.environment, in: self)
        _ = lua_setupvalue(L, -2, 1)
      case .empty:
        lua_createtable(L, 0, 0)
        _ = lua_setupvalue(L, -2, 1)
      }
      return makeReference(at: -1, L)
    }
  }

  /// Loads and runs `source`, returning what it returns.
  @discardableResult
  public func evaluate(
    _ source: String, chunkName: String = "eval", in sandbox: LuaSandbox? = nil
  ) throws(LuaError) -> [LuaValue] {
    try call(load(source, chunkName: chunkName, in: sandbox))
  }

  /// `evaluate` of source given as bytes (see `load(bytes:chunkName:in:)`).
  @discardableResult
  public func evaluate(
    bytes source: [UInt8], chunkName: String = "eval", in sandbox: LuaSandbox? = nil
  ) throws(LuaError) -> [LuaValue] {
    try call(load(bytes: source, chunkName: chunkName, in: sandbox))
  }

  /// `evaluate(bytes:)` for source held as a `LuaString`.
  @discardableResult
  public func evaluate(
    _ source: LuaString, chunkName: String = "eval", in sandbox: LuaSandbox? = nil
  ) throws(LuaError) -> [LuaValue] {
    try call(load(source, chunkName: chunkName, in: sandbox))
  }

  // MARK: Calling

  /// Calls a Lua function, protected, and returns snapshots of its results.
  @discardableResult
  public func call(
    _ function: LuaReference, _ arguments: LuaValue...
  ) throws(LuaError) -> [LuaValue] {
    try call(function, arguments: arguments.map(LuaArgument.value))
  }

  /// `call(_:_:)` with arguments of any kind (`LuaArgument`): values, handles, or `Encodable`
  /// values marshalled straight onto the stack.
  @discardableResult
  public func call(
    _ function: LuaReference, arguments: [LuaArgument]
  ) throws(LuaError) -> [LuaValue] {
    try invoke(function, arguments: arguments) { (first) throws(LuaError) -> [LuaValue] in
      var results: [LuaValue] = []
      for index in stride(from: first, through: stack.top, by: 1) {
        do throws(LuaError) { results.append(try stack.value(at: index, in: self)) } catch {
          throw error.rooted(at: "result #\(index - first + 1)")
        }
      }
      return results
    }
  }

  /// Calls `function` with one argument and returns its first result: the shape of a hot path
  /// (a feature's step), with no arrays built per call.
  public func call(_ function: LuaReference, with argument: LuaValue) throws(LuaError) -> LuaValue {
    drainReleases()
    return try stack.guarded { () throws(LuaError) -> LuaValue in
      try stack.push(function, in: self)
      do throws(LuaError) { try stack.push(argument, in: self) } catch {
        throw error.rooted(at: "argument #1")
      }
      try callProtected(arguments: 1, results: 1)
      do throws(LuaError) { return try stack.value(at: -1, in: self) } catch {
        throw error.rooted(at: "result #1")
      }
    }
  }

  /// Calls a Lua function and decodes its first result straight from the Lua stack.
  public func call<Result: Decodable>(
    _ function: LuaReference, arguments: [LuaArgument], returning type: Result.Type,
    resultName: String = "result"
  ) throws(LuaError) -> Result {
    try invoke(function, arguments: arguments, results: 1) { (_) throws(LuaError) -> Result in
      try LuaDecoder().decode(type, at: -1, stack: stack, vm: self, rootName: resultName)
    }
  }

  /// Pushes the function and arguments, calls under the limits, hands the index of the first
  /// result (the rest follow it up to the top) to `read`, and restores the stack.
  func invoke<Result>(
    _ function: LuaReference, arguments: [LuaArgument], results: Int32 = LK_MULTRET,
    read: (Int32) throws(LuaError) -> Result
  ) throws(LuaError) -> Result {
    drainReleases()
    return try stack.guarded { () throws(LuaError) -> Result in
      let base = stack.top
      guard stack.reserve(Int32(arguments.count) + 2) else {
        throw .runtime(message: "too many arguments (\(arguments.count))", traceback: "")
      }
      try stack.push(function, in: self)
      for (position, argument) in arguments.enumerated() {
        do throws(LuaError) { try argument.push(onto: stack, in: self) } catch {
          throw error.under("argument #\(position + 1)")
        }
      }
      try callProtected(arguments: Int32(arguments.count), results: results)
      return try read(base + 1)
    }
  }

  /// `lk_pcall` with its failure turned into a `LuaError`.
  func callProtected(arguments: Int32, results: Int32) throws(LuaError) {
    let status = lk_pcall(L, arguments, results)
    guard status != LUA_OK else { return }
    throw takeError(status: status)
  }

  /// The error of a failed call, from the message on top of the stack (which it pops).
  func takeError(status: Int32) -> LuaError {
    let report = stack.errorMessage(at: -1)
    lk_pop(L, 1)
    let (message, traceback) = LuaVM.splitTraceback(report)
    switch lk_last_failure(L) {
    case LK_FAILURE_TIME_LIMIT:
      return .timeLimit(seconds: limits.seconds ?? 0, message: message, traceback: traceback)
    case LK_FAILURE_INSTRUCTION_LIMIT:
      return .instructionLimit(
        limit: limits.instructions ?? 0, message: message, traceback: traceback)
    case LK_FAILURE_MEMORY_LIMIT where status == LUA_ERRMEM:
      _ = lk_gc_collect(L)  // what the failed call built is garbage now; start the next one clean
      return .memoryLimit(limit: limits.memory ?? 0)
    default:
      return .runtime(message: message, traceback: traceback)
    }
  }

  static func splitTraceback(_ report: String) -> (message: String, traceback: String) {
    guard let range = report.range(of: "\nstack traceback:\n") else { return (report, "") }
    return (String(report[..<range.lowerBound]), "stack traceback:\n" + report[range.upperBound...])
  }

  // MARK: Values

  /// Keeps a Swift value in Lua and returns a handle on it.
  public func reference(to value: LuaValue) throws(LuaError) -> LuaReference {
    drainReleases()
    return try stack.guarded { () throws(LuaError) -> LuaReference in
      do throws(LuaError) { try stack.push(value, in: self) } catch {
        throw error.rooted(at: "value")
      }
      return makeReference(at: -1, L)
    }
  }

  /// A snapshot of the value behind a handle; `rootName` starts the path of a conversion error
  /// (`state.todos[3]: ...`).
  public func value(
    of reference: LuaReference, rootName: String = "value"
  ) throws(LuaError) -> LuaValue {
    try stack.guarded { () throws(LuaError) -> LuaValue in
      do throws(LuaError) {
        try stack.push(reference, in: self)
        return try stack.value(at: -1, in: self)
      } catch {
        throw error.rooted(at: rootName)
      }
    }
  }

  /// The trusted global environment (not a sandbox's): for host code, not feature code.
  public func global(_ name: String) throws(LuaError) -> LuaValue {
    try stack.guarded { () throws(LuaError) -> LuaValue in
      lk_pushglobaltable(L)
      _ = stack.rawGetField(-1, name)
      do throws(LuaError) { return try stack.value(at: -1, in: self) } catch {
        throw error.rooted(at: name)
      }
    }
  }

  /// Sets the global `name` of the trusted environment (not a sandbox's) to `value`, raw: for host
  /// code, not feature code. A table is pushed as a new Lua table.
  public func setGlobal(_ name: String, _ value: LuaValue) throws(LuaError) {
    try stack.guarded { () throws(LuaError) in
      lk_pushglobaltable(L)
      do throws(LuaError) { try stack.push(value, in: self) } catch { throw error.rooted(at: name) }
      stack.rawSetField(-2, name)
    }
  }

  /// A registry handle on the value at `index` of thread `thread` (the value stays put).
  func makeReference(at index: Int32, _ thread: OpaquePointer) -> LuaReference {
    let typeName = String(cString: lua_typename(thread, lua_type(thread, index)))
    let identity = UInt(bitPattern: lua_topointer(thread, index))
    lua_pushvalue(thread, index)
    let slot = luaL_ref(thread, LK_REGISTRYINDEX)
    return LuaReference(slot: slot, owner: releaseQueue, identity: identity, typeName: typeName)
  }

  // MARK: Arrays

  func setArrayMarker(on index: Int32, _ thread: OpaquePointer) {
    let table = lua_absindex(thread, index)
    lua_rawgeti(thread, LK_REGISTRYINDEX, lua_Integer(arrayMarkerSlot))
    lua_setmetatable(thread, table)
  }

  /// What metatable a table has, for a snapshot: none, the array marker, or another.
  enum TableMetatable { case none, arrayMarker, other }

  func metatable(at index: Int32, _ thread: OpaquePointer) -> TableMetatable {
    guard lua_getmetatable(thread, index) != 0 else { return .none }
    defer { lk_pop(thread, 1) }
    return lua_topointer(thread, -1) == arrayMarkerIdentity ? .arrayMarker : .other
  }

  func hasArrayMarker(at index: Int32, _ thread: OpaquePointer) -> Bool {
    guard lua_getmetatable(thread, index) != 0 else { return false }
    defer { lk_pop(thread, 1) }
    return lua_topointer(thread, -1) == arrayMarkerIdentity
  }

  // MARK: Sandboxes

  /// A fresh environment for feature code: see `LuaSandbox`.
  public func makeSandbox(
    _ configuration: LuaSandbox.Configuration = .init()
  ) throws(LuaError) -> LuaSandbox {
    let print = configuration.print
    let printFunction = function(named: "print") { arguments in
      // Bytes that are not UTF-8 are shown as U+FFFD: a line is still printed.
      guard case let .string(line)? = arguments.first else { print(""); return [] }
      print(String(decoding: line.bytes, as: UTF8.self))
      return []
    }
    let modules = configuration.modules
    let findModule = function(named: "require") { arguments -> [LuaValue] in
      guard let name = arguments.first?.stringValue else {
        return [.nil, "module name must be a string"]
      }
      guard let modules else {
        return [.nil, .init("module '\(name)' not found: this sandbox allows no modules")]
      }
      guard let module = try modules.source(ofModule: name) else {
        return [.nil, .init("module '\(name)' not found: \(modules.searchDescription(for: name))")]
      }
      if let precompiled = module.precompiled {
        return [.string(LuaString(bytes: precompiled.bytecode)), .nil, "b"]
      }
      return [.string(module.bytes), .init("@" + module.chunkName), "t"]
    }
    drainReleases()
    let environment = try stack.guarded { () throws(LuaError) -> LuaReference in
      lua_rawgeti(L, LK_REGISTRYINDEX, lua_Integer(sandboxFactorySlot))
      try stack.push(printFunction, in: self)
      try stack.push(findModule, in: self)
      var preloaded = LuaTable()
      for (name, module) in configuration.preloaded { preloaded[name] = module }
      do throws(LuaError) { try stack.push(.table(preloaded), in: self) } catch {
        throw error.rooted(at: "preloaded")
      }
      try callProtected(arguments: 3, results: 1)
      return makeReference(at: -1, L)
    }
    return LuaSandbox(environment: environment, configuration: configuration)
  }
}

extension LuaVM {
  /// A copy of the value `reference` holds, kept in Lua as data (plain tables, as a snapshot
  /// into Swift and a push back would make them; see `DataCopy.c`): a state kept for later at
  /// the cost of a copy in C, read into Swift (`value(of:)`) only when asked for. It counts
  /// against the VM's memory limit; what cannot be copied is thrown with the short reason.
  public func copyData(of reference: LuaReference) throws(LuaError) -> LuaReference {
    drainReleases()
    return try stack.guarded { () throws(LuaError) -> LuaReference in
      try stack.push(reference, in: self)
      guard lk_copy_data(L, -1) == LUA_OK else {
        throw .conversion(path: "", message: stack.errorMessage(at: -1))
      }
      return makeReference(at: -1, L)
    }
  }

  /// Calls `function` and keeps its first result in Lua, copied as data: plain tables, as a
  /// snapshot into Swift and a push back would make them, but without that trip (see
  /// `DataCopy.c`; a table reached twice is shared). Nil when the function returned nothing.
  /// What cannot be copied (a table key, a cycle, too deep) is thrown as the snapshot names it.
  public func callKeepingData(_ function: LuaReference) throws(LuaError) -> LuaReference? {
    drainReleases()
    return try stack.guarded { () throws(LuaError) -> LuaReference? in
      let base = stack.top
      try stack.push(function, in: self)
      try callProtected(arguments: 0, results: LK_MULTRET)
      guard stack.top > base else { return nil }
      stack.setTop(base + 1)
      if lk_copy_data(L, -1) == LUA_OK { return makeReference(at: -1, L) }
      let reason = stack.errorMessage(at: -1)
      lk_pop(L, 1)  // the short reason: the snapshot says where
      let value: LuaValue
      do throws(LuaError) { value = try stack.value(at: -1, in: self) } catch {
        throw error.rooted(at: "result #1")
      }
      // What a snapshot reads but a state cannot hold: a key or a value with no saved form.
      if let path = LuaVM.pathOfWhatIsNotData(in: value) {
        throw .conversion(path: "result #1" + path, message: reason)
      }
      try stack.push(value, in: self)
      return makeReference(at: -1, L)
    }
  }

  /// The path of the first field (in key order) whose key is a function, a coroutine or a
  /// userdata (the table that holds it), or whose value is a function or a coroutine, or nil.
  /// Each table is looked into once, however many times it is reached.
  ///
  /// ```swift
  /// let path = LuaVM.pathOfWhatIsNotData(in: state)  // ".todos[2].done" for a function there
  /// ```
  public static func pathOfWhatIsNotData(in value: LuaValue) -> String? {
    var seen = Set<LuaTableIdentity>()
    func search(_ value: LuaValue) -> String? {
      switch value {
      case .function: return ""
      case let .other(reference) where reference.typeName == "thread": return ""
      case let .table(table):
        guard seen.insert(table.identity).inserted else { return nil }
        for (key, element) in table.sortedEntries {
          switch key {
          case .function, .other: return ""
          default: break
          }
          if let path = search(element) { return LuaPath.component(key) + path }
        }
        return nil
      default: return nil
      }
    }
    return search(value)
  }
}
