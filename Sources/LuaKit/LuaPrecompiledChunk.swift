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
