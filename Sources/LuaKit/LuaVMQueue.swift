import Foundation

/// The one owner of a Lua VM that several threads share: a feature run by a store and read by
/// its host, a test session, a REPL. Every access goes through `access`, one caller at a time,
/// with the VM and `Context`, what the owner keeps beside the VM and changes with it (a loaded
/// module, its sandbox). As GRDB's `DatabaseQueue` does for a SQLite connection, and mlua's
/// `Lua` for its state, so that nothing above it pairs a lock with `@unchecked Sendable`.
///
/// `access` is not reentrant: a body must not call `access` on the same queue.
public final class LuaVMQueue<Context>: @unchecked Sendable {
  // Sendable by construction: the VM and the context are only reached under `lock`. The lock
  // also makes the runtime's exclusivity check on `context` redundant (it was a few percent of
  // a small action): it is skipped.
  @usableFromInline let lock = NSLock()
  @usableFromInline let vm: LuaVM
  @usableFromInline @exclusivity(unchecked) var context: Context

  /// A queue that owns `vm` and `context`: from now on, reach them only through `access`.
  ///
  /// ```swift
  /// let queue = LuaVMQueue(vm: try LuaVM(), context: 0)
  /// let results = try queue.access { vm, calls in
  ///   calls += 1
  ///   return try vm.evaluate("return 40 + 2")
  /// }
  /// ```
  public init(vm: LuaVM, context: Context) {
    self.vm = vm
    self.context = context
  }

  /// Runs `body` with the VM and the context, alone.
  @inlinable
  public func access<Result, Failure: Error>(
    _ body: (LuaVM, inout Context) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(vm, &context)
  }
}
