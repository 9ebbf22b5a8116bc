import Foundation

/// Plain `lua5.4`, the reference a state's behaviour is compared with: what a program prints
/// there is what the same program must give on a state.
public enum PlainLua {
  /// What `program`, run as a file by /usr/bin/lua5.4 with `arguments`, wrote to its standard
  /// output.
  public static func output(of program: String, arguments: [String] = []) throws -> String {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "plain-lua-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString).lua")
    try program.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/lua5.4")
    process.arguments = [file.path] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }

  /// The transcripts of seeds first...last, by seed, of a driver run with arguments `first`,
  /// `last` and `nops` that writes each seed's as `==SEED`, a newline, the transcript, a newline.
  public static func transcripts(
    of driver: String, seeds first: Int, _ last: Int, nops: Int
  ) throws -> [Int: String] {
    let text = try output(of: driver, arguments: ["\(first)", "\(last)", "\(nops)"])
    var result: [Int: String] = [:]
    for chunk in text.components(separatedBy: "==").dropFirst() {
      guard let newline = chunk.firstIndex(of: "\n"), let seed = Int(chunk[..<newline]) else {
        continue
      }
      var body = String(chunk[chunk.index(after: newline)...])
      if body.hasSuffix("\n") { body.removeLast() }
      result[seed] = body
    }
    return result
  }
}
