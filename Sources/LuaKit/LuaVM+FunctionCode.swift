import LuaSupport

extension LuaVM {
  /// A number for the code the function `reference` holds would run: its bytecode without debug
  /// information, and what its upvalues hold (the local functions it calls, the numbers, strings
  /// and booleans it reads; a table by its type alone, the globals not at all), within bounds
  /// (see `FunctionCode.c`). Equal for the same source loaded again in one process; different
  /// when that code changed. Nil when `reference` is not a function.
  ///
  /// ```swift
  /// let one = try vm.load("return 1", chunkName: "one")
  /// let again = try vm.load("-- a comment\nreturn 1", chunkName: "one")
  /// vm.codeHash(of: one) == vm.codeHash(of: again)  // true: no debug information
  /// ```
  public func codeHash(of reference: LuaReference) -> UInt64? {
    drainReleases()
    return stack.guarded { () -> UInt64? in
      do throws(LuaError) { try stack.push(reference, in: self) } catch { return nil }
      let hash = lk_function_code_hash(L, -1)
      return hash == 0 ? nil : hash
    }
  }
}
