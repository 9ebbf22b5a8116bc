import CLua
import LuaSupport

/// A Lua chunk compiled at build time by the Lua this binary links (`LuaBytecodePlugin` makes a
/// target's `LuaBytecode` enum from its `Lua/*.lua` files). Loading one skips the parser: the
/// library's chunks load about 8x faster than from their text.
///
/// Only this package makes them (`package` access): Lua does not check bytecode, so bytes from
/// anywhere else could break the state. Feature code can never load bytecode; see `LuaSandbox`.
package struct LuaPrecompiledChunk: Equatable, Sendable {
  /// A binary chunk, as `lua_dump` wrote it. It keeps the name it was compiled with
  /// (`=composable.effect`), which is how errors in it name it.
  package let bytecode: [UInt8]

  package init(bytecode: [UInt8]) { self.bytecode = bytecode }

  /// `source` compiled now, in a state of its own, as `lua-bytecode` compiles at build time
  /// (for tests: what the build made, made again).
  package init(compiling source: String, chunkName: String) throws(LuaError) {
    guard let state = luaL_newstate() else { throw .memoryLimit(limit: 0) }
    defer { lua_close(state) }
    guard luaL_loadbufferx(state, source, source.utf8.count, chunkName, "t") == LUA_OK else {
      throw .syntax(message: LuaStack(state).errorMessage(at: -1), incompleteInput: false)
    }
    final class Bytes { var bytes: [UInt8] = [] }
    let output = Bytes()
    let write: lua_Writer = { _, data, size, context in
      let output = Unmanaged<Bytes>.fromOpaque(context!).takeUnretainedValue()
      output.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size))
      return 0
    }
    _ = lua_dump(state, write, Unmanaged.passUnretained(output).toOpaque(), 0)
    bytecode = output.bytes
  }

  /// Pushes the chunk as a function (or the error), returning Lua's status.
  func push(_ L: OpaquePointer) -> Int32 {
    bytecode.withUnsafeBufferPointer { lk_loadbinary(L, $0.baseAddress, $0.count) }
  }
}

extension LuaVM {
  /// Loads a precompiled chunk into a function; with a sandbox, its globals are the sandbox's
  /// environment.
  package func load(
    _ chunk: LuaPrecompiledChunk, in sandbox: LuaSandbox? = nil
  ) throws(LuaError) -> LuaReference {
    try load(globals: sandbox.map { .sandbox($0) } ?? .real) { chunk.push(L) }
  }
}
