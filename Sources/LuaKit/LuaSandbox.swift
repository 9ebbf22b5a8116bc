/// An environment for feature code: the safe part of the standard library and nothing else.
///
/// Present: `assert error ipairs next pairs pcall xpcall select tonumber tostring type
/// rawequal rawget rawset rawlen setmetatable getmetatable`, `string` (without `dump`), and
/// copies of `table`, `math` (without `random`/`randomseed`: reducers get seeded randomness from
/// the host), `utf8` and `coroutine`. These are the VM's own versions (LuaSupport, see
/// Libraries.c): `next`, `pairs`, `rawget`, `rawset` and `rawlen` understand state proxies and
/// never show their hidden keys, `setmetatable` refuses `__gc` (a finalizer would run outside
/// every budget), the library functions that loop in C charge their work to the instruction
/// budget, and nothing that catches errors (`pcall`, `coroutine.resume`...) catches a limit.
/// Replaced: `print` and `warn` go to the host, `load` compiles text only and defaults to this
/// environment, `require` loads only the modules the host allows.
/// Absent: `io`, `os`, `debug`, `package`, `dofile`, `loadfile`, `collectgarbage`.
///
/// Each sandbox is a fresh table: one sandbox's globals never leak into another's, and the
/// libraries are copies, so changing `table.insert` in one changes nothing elsewhere. The one
/// exception is `string`: strings reach it through their metatable, which a VM has one of, so
/// it is the VM's real string table, as in plain Lua (`("x"):f()` finds a function added to
/// `string`).
public struct LuaSandbox {
  /// What a sandbox is made with (`LuaVM.makeSandbox`): where its `print` goes, which modules its
  /// `require` may load, and the modules it is given as values.
  public struct Configuration {
    /// Where `print` goes: one line per call, arguments joined by tabs.
    public var print: (String) -> Void
    /// The modules `require` may load; nil allows none.
    public var modules: (any LuaModuleResolver)?
    /// Modules given as values rather than source (a table of host functions, say):
    /// `require(name)` returns the value as it is.
    public var preloaded: [String: LuaValue]

    /// A configuration; by default `print` writes to standard output and `require` loads nothing.
    ///
    /// ```swift
    /// let sandbox = try vm.makeSandbox(
    ///   .init(print: { print("lua:", $0) }, modules: LuaModuleTable(["util": "return {}"])))
    /// ```
    public init(
      print: @escaping (String) -> Void = { Swift.print($0) },
      modules: (any LuaModuleResolver)? = nil,
      preloaded: [String: LuaValue] = [:]
    ) {
      self.print = print
      self.modules = modules
      self.preloaded = preloaded
    }
  }

  /// The environment table; chunks loaded `in:` this sandbox see it as their globals.
  public let environment: LuaReference
  /// What the sandbox was made with.
  public let configuration: Configuration
}

/// The trusted chunk that builds sandboxes (`Lua/sandbox.lua`, compiled at build time), run
/// once in the real global environment.
let sandboxBootstrap = LuaPrecompiledChunk(bytecode: LuaBytecode.sandbox)
