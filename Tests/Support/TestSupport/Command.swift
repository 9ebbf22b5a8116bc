import Foundation
import Testing

/// The `composable` command as a person runs it: the executable built beside the tests, with
/// what it printed and its exit code.
public enum Command {
  public struct Outcome: Sendable {
    public var status: Int32
    public var output: String
    public var errors: String
  }

  /// Runs `composable arguments...` with `input` on standard input.
  /// `environment` is set over this process's: a nil value unsets the variable.
  public static func run(
    _ arguments: [String], input: String = "", in directory: URL = repositoryRoot,
    environment: [String: String?] = [:], executable: URL? = nil
  ) throws -> Outcome {
    try run(
      arguments, inputBytes: Array(input.utf8), in: directory, environment: environment,
      executable: executable)
  }

  /// `run` with standard input given as bytes (any bytes, not only UTF-8 text). With
  /// `executable`, that program runs instead (`/bin/sh`, to set a limit first).
  public static func run(
    _ arguments: [String], inputBytes input: [UInt8], in directory: URL = repositoryRoot,
    environment: [String: String?] = [:], executable: URL? = nil
  ) throws -> Outcome {
    let process = Process()
    process.executableURL = try executable ?? builtProduct("composable")
    process.arguments = arguments
    process.currentDirectoryURL = directory
    if !environment.isEmpty {
      var variables = ProcessInfo.processInfo.environment
      for (name, value) in environment { variables[name] = value }
      process.environment = variables
    }
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input))
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    let errors = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Outcome(
      status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
      errors: String(decoding: errors, as: UTF8.self))
  }
}

extension Command {
  /// `composable` with `arguments`, started, with pipes to its input, output and errors: for a
  /// test that talks to it while it runs.
  public static func start(
    _ arguments: [String]
  ) throws -> (process: Process, input: Pipe, output: Pipe, errors: Pipe) {
    let process = Process()
    process.executableURL = try builtProduct("composable")
    process.arguments = arguments
    let input = Pipe(), output = Pipe(), errors = Pipe()
    (process.standardInput, process.standardOutput, process.standardError) = (input, output, errors)
    try process.run()
    return (process, input, output, errors)
  }
}

extension Pipe {
  /// Reads what comes out of the pipe until it has written `text` (or ends); all it read.
  public func read(until text: String) -> String {
    var read = ""
    while !read.contains(text) {
      let chunk = fileHandleForReading.availableData
      if chunk.isEmpty { break }
      read += String(decoding: chunk, as: UTF8.self)
    }
    return read
  }
}
