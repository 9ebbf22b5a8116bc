/// How much one VM may take: memory for all its Lua values, and instructions per call.
///
/// The memory cap holds while Lua code runs; Swift code that builds values on the Lua stack
/// (marshalling, host functions) is not capped, so a memory error never unwinds through a
/// Swift frame. The instruction budget is counted per top-level call, coroutines included,
/// and a script cannot swallow it with `pcall`: once spent, every later instruction fails.
/// Counting slows every instruction, so a call on the main thread starts counting only once
/// it has run for a few milliseconds (a watchdog arms the count, see `Watchdog.c`): a short
/// call is never counted, and a runaway one stops that much later.
public struct LuaLimits: Equatable, Sendable {
  /// Bytes of Lua memory, or nil for no cap.
  public var memory: Int?
  /// VM instructions one call may run, or nil for no budget.
  public var instructions: Int?

  public init(memory: Int? = 64 << 20, instructions: Int? = 10_000_000) {
    self.memory = memory
    self.instructions = instructions
  }

  /// No cap and no budget: for trusted code and benchmarks of the raw floor.
  public static let unlimited = LuaLimits(memory: nil, instructions: nil)

  static func describe(bytes: Int) -> String {
    if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
    if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
    return "\(bytes) bytes"
  }
}
