import Foundation
import TestSupport
import Testing

/// A data directory `composable run` cannot make is named with the folder at fault and the
/// system's reason, at the end of input and at a signal's save alike: FileManager's error read
/// `Error Domain=NSCocoaErrorDomain Code=513 "..." UserInfo={...}` there (an attacker's
/// finding, as `nobody` with a read-only folder).
@Suite struct DataDirectoryMessagesTests {
  static let feature = """
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "tally.saved.lua", debounce = 60 },
      initial_state = function() return { count = 0 } end,
      reduce = function(state, action) state.count = state.count + 1 end,
    }
    """

  /// `composable` with `arguments`, as `nobody` when the tests run as root (root writes
  /// anywhere): the process, and pipes to its input, output and errors.
  static func composableAsNobody(
    _ arguments: [String]
  ) throws -> (Process, input: Pipe, output: Pipe, errors: Pipe) {
    let process = Process()
    if geteuid() == 0 {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
      process.arguments =
        ["--reuid=65534", "--regid=65534", "--clear-groups", try builtProduct("composable").path]
        + arguments
    } else {
      process.executableURL = try builtProduct("composable")
      process.arguments = arguments
    }
    let input = Pipe(), output = Pipe(), errors = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    return (process, input, output, errors)
  }

  /// `composable run` of `feature` as nobody, saving into `data`, given one `increment` and the
  /// end of input: its exit status and what it wrote to standard error. With `meanwhile`, that
  /// runs once the action's change is shown, before the input ends.
  static func incrementAsNobody(
    feature: URL, data: URL, meanwhile: (() throws -> Void)? = nil
  ) throws -> (Int32, String) {
    let (process, input, output, errors) = try composableAsNobody(
      ["run", feature.path, "--wait", "0", "--data", data.path])
    input.fileHandleForWriting.write(Data("increment\n".utf8))
    if let meanwhile {
      #expect(waitForTheChange(output), "the action's change was not shown")
      try meanwhile()
    }
    try input.fileHandleForWriting.close()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
  }

  /// Reads `output` until the tally's `+ count = 1` is shown; whether it was.
  static func waitForTheChange(_ output: Pipe) -> Bool {
    output.read(until: "+ count = 1").contains("+ count = 1")
  }

  /// A feature in a folder anyone may read, and a data directory to be made in a folder
  /// anyone may write to, until `lock` makes it read-only: at start the run sees nothing wrong
  /// (it stops before its first action when it does, `RunExitSummaryTests`).
  func lockableParent() throws -> (directory: URL, feature: URL, data: URL, lock: () throws -> Void)
  {
    let directory = try makeTemporaryDirectory("run-data-parent-read-only")
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
    let feature = directory.appendingPathComponent("tally.lua")
    try Self.feature.write(to: feature, atomically: true, encoding: .utf8)
    let parent = directory.appendingPathComponent("locked")
    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: parent.path)
    let lock = {
      try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: parent.path)
    }
    return (directory, feature, parent.appendingPathComponent("data"), lock)
  }

  func remove(_ directory: URL) {
    try? FileManager.default.setAttributes(
      [.posixPermissions: 0o755], ofItemAtPath: directory.appendingPathComponent("locked").path)
    try? FileManager.default.removeItem(at: directory)
  }

  @Test func atTheEndOfInputTheFolderAndTheReasonAreNamed() throws {
    let (directory, feature, data, lock) = try lockableParent()
    defer { remove(directory) }
    let (status, text) = try Self.incrementAsNobody(feature: feature, data: data, meanwhile: lock)
    #expect(status == 1, "\(text)")
    #expect(
      text.contains(
        "the state could not be saved in the data directory \(data.path) (tally.saved.lua: the "
          + "directory \(data.path) could not be made: Permission denied)"), "\(text)")
    #expect(!text.contains("NSCocoaErrorDomain") && !text.contains("UserInfo"), "\(text)")
  }

  @Test func atASignalTheFolderAndTheReasonAreNamed() throws {
    let (directory, feature, data, lock) = try lockableParent()
    defer { remove(directory) }
    let (process, input, output, errors) = try Self.composableAsNobody(
      ["run", feature.path, "--data", data.path])
    input.fileHandleForWriting.write(Data("increment\n".utf8))
    // The action's change printed: the save is pending (a minute's debounce), and the signal's
    // save has it to write.
    #expect(Self.waitForTheChange(output))
    try lock()
    kill(process.processIdentifier, SIGTERM)
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    try? input.fileHandleForWriting.close()
    #expect(process.terminationStatus == 143, "\(text)")
    #expect(
      text.contains("the directory \(data.path) could not be made: Permission denied"), "\(text)")
    #expect(!text.contains("NSCocoaErrorDomain") && !text.contains("UserInfo"), "\(text)")
  }
}
