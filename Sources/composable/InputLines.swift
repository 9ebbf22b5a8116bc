import Foundation

/// The lines of standard input as bytes, exactly: `readLine()` would replace bytes that are not
/// UTF-8, silently, and a line's bytes are what reaches the action (a Lua string is bytes).
///
/// A line ends at a line feed, which is not part of it; a carriage return just before the line
/// feed (CRLF input) ends it too. That reads as `lua5.4` reads the line: its lexer takes a CR
/// as a line break, so dropping it changes nothing Lua sees, and a bare word stays a word. A CR
/// anywhere else stays in the line. The last line needs no line feed.
struct InputLines {
  private let descriptor: Int32
  private var buffer: [UInt8] = []
  private var start = 0
  /// Where the search for the next line feed goes on: a long line read in many chunks is
  /// scanned once, not again with each chunk (a 20 MB line is 320 of them).
  private var scanned = 0
  private var ended = false

  init(descriptor: Int32 = STDIN_FILENO) { self.descriptor = descriptor }

  /// The next line, or nil at the end of the input.
  mutating func next() -> [UInt8]? {
    while true {
      if let newline = buffer[max(start, scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
        var end = newline
        if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = Array(buffer[start..<end])
        start = newline + 1
        scanned = start
        return line
      }
      scanned = buffer.count
      if ended {
        guard start < buffer.count else { return nil }
        let line = Array(buffer[start...])
        start = buffer.count
        return line
      }
      fill()
    }
  }

  /// Reads what the input has next, after dropping the lines already taken.
  private mutating func fill() {
    if start > 0 {
      buffer.removeFirst(start)
      scanned -= start
      start = 0
    }
    // Read into uninitialized storage: zeroing 64 KB first cost more than a start's own work.
    var count = 0
    let chunk = [UInt8](unsafeUninitializedCapacity: 64 << 10) { storage, initialized in
      repeat {
        count = read(descriptor, storage.baseAddress, storage.count)
      } while count < 0 && errno == EINTR
      initialized = max(count, 0)
    }
    if count <= 0 {
      ended = true
      return
    }
    buffer += chunk
  }
}
