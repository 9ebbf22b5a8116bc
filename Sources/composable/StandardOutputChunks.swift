import Foundation

/// Standard output as a stream that is written in chunks of 64 KiB: text as long as a large
/// state's description goes out as it is made, and is never held whole.
struct StandardOutputChunks: TextOutputStream {
  private var pending = ""

  mutating func write(_ string: String) {
    pending += string
    if pending.utf8.count >= 1 << 16 { flush() }
  }

  mutating func flush() {
    print(pending, terminator: "")
    fflush(nil)
    pending = ""
  }
}
