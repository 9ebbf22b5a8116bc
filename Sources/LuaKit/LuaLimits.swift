/// How much one VM may take: memory for all its Lua values, and instructions and time per call.
///
/// The memory cap holds while Lua code runs; Swift code that builds values on the Lua stack
/// (marshalling, host functions) is not capped, so a memory error never unwinds through a
/// Swift frame. The instruction budget is counted per top-level call, coroutines included,
/// and a script cannot swallow it: once spent (or once the time is up), every later
/// instruction fails, every pcall or resume that catches the error raises it again, and the
/// call fails even if Lua code caught it. Counting slows every instruction, so a call on the
/// main thread starts counting only once it has run for a few milliseconds (a watchdog arms
/// the count, see `Watchdog.c`): a short call is never counted, and a runaway one stops that
/// much later. Work done in C is charged to the same budget (the library functions of
/// `Libraries.c`, the allocator). The time limit is the backstop for what no count sees
/// (comparing long strings, one instruction each). A memory error is Lua's own: Lua code may
/// catch it and go on, under the cap.
public struct LuaLimits: Equatable, Sendable {
  /// Bytes the VM may make the process hold (its allocator's free blocks included), or nil for
  /// no cap.
  public var memory: Int?
  /// VM instructions one call may run, or nil for no budget.
  public var instructions: Int?
  /// Seconds one call may run, or nil for no limit. The watchdog checks it every 5 ms (every
  /// 100 ms after a quiet second), so a call stops that much after its time.
  public var seconds: Double?

  /// Limits of `memory` bytes, and of `instructions` and `seconds` per call; nil lifts one. The
  /// defaults are 64 MiB, 10 million instructions and 5 seconds.
  ///
  /// ```swift
  /// let vm = try LuaVM(limits: LuaLimits(memory: 16 << 20, seconds: 1))
  /// ```
  public init(memory: Int? = 64 << 20, instructions: Int? = 10_000_000, seconds: Double? = 5) {
    self.memory = memory
    self.instructions = instructions
    self.seconds = seconds
  }

  /// No cap, no budget, no time limit: for trusted code and benchmarks of the raw floor.
  public static let unlimited = LuaLimits(memory: nil, instructions: nil, seconds: nil)

  static func describe(bytes: Int) -> String {
    if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
    if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
    return "\(bytes) bytes"
  }
}
