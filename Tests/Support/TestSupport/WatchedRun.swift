import Foundation
import Testing

/// `composable run FEATURE --watch --wait 0 --data DIRECTORY` as a person runs it: lines typed
/// on its standard input, what it prints gathered as it comes, so that a test can wait for one
/// reply before it saves a new version of the feature or types the next line.
public final class WatchedRun {
  public let process = Process()
  private let stdin = Pipe()
  private let pipes: [Pipe]
  private let gathered = Locked("")

  /// Starts the run; with `errorsToo`, standard error is gathered with standard output (else
  /// it goes where the tests' goes).
  public init(feature: URL, data directory: URL, errorsToo: Bool = false) throws {
    process.executableURL = try builtProduct("composable")
    process.arguments = ["run", feature.path, "--watch", "--wait", "0", "--data", directory.path]
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    pipes = errorsToo ? [stdout, Pipe()] : [stdout]
    if errorsToo { process.standardError = pipes[1] }
    try process.run()
    for pipe in pipes {
      pipe.fileHandleForReading.readabilityHandler = { [gathered] handle in
        let data = handle.availableData
        gathered.withLock { $0 += String(decoding: data, as: UTF8.self) }
      }
    }
  }

  /// All it printed so far.
  public var output: String { gathered.withLock { $0 } }

  /// Types `line` and a newline.
  public func type(_ line: String) {
    stdin.fileHandleForWriting.write(Data((line + "\n").utf8))
  }

  /// Whether `text` is printed within `seconds`.
  public func waitFor(_ text: String, seconds: Double = 5) -> Bool {
    for _ in 0..<Int(seconds * 100) {
      if output.contains(text) { return true }
      Thread.sleep(forTimeInterval: 0.01)
    }
    return false
  }

  /// Ends its input, waits for it to exit and returns its exit status, with what it printed
  /// last gathered.
  public func end() throws -> Int32 {
    try stdin.fileHandleForWriting.close()
    process.waitUntilExit()
    for pipe in pipes {
      pipe.fileHandleForReading.readabilityHandler = nil
      let rest = pipe.fileHandleForReading.readDataToEndOfFile()
      gathered.withLock { $0 += String(decoding: rest, as: UTF8.self) }
    }
    return process.terminationStatus
  }
}
