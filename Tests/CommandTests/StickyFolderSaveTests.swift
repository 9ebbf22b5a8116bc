import Foundation
import TestSupport
import Testing

/// A saved file in a folder with the sticky bit (as /tmp), belonging to another user: the
/// folder can be written to, but only the file's owner may rename over it, so no save can
/// replace it. The run stops before its first action, saying why; it ran every action, then
/// lost them all at the end (an attacker's finding, as `nobody` in a 1777 folder of root's).
@Suite struct StickyFolderSaveTests {
  @Test func anotherUsersFileInAStickyFolderStopsTheRunBeforeItsFirstAction() throws {
    let directory = try makeTemporaryDirectory("sticky-save")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
    let feature = directory.appendingPathComponent("tally.lua")
    try DataDirectoryMessagesTests.feature.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("shared")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: data.path)
    let saved = data.appendingPathComponent("tally.saved.lua")
    let kept = "return { count = 3 }\n"
    try kept.write(to: saved, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: saved.path)
    let (process, input, output, errors) = try DataDirectoryMessagesTests.composableAsNobody(
      ["run", feature.path, "--wait", "0", "--data", data.path])
    input.fileHandleForWriting.write(Data("increment\n".utf8))
    try input.fileHandleForWriting.close()
    let shown = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    if geteuid() == 0 {  // the run is nobody's, the file root's
      #expect(process.terminationStatus == 1, "\(said)")
      #expect(
        said.contains(
          "\(saved.path) belongs to user 0, in a folder where only a file's owner may replace "
            + "it (the sticky bit, as in /tmp), so no save could replace it"), "\(said)")
      #expect(!shown.contains("count = 4"), "an action ran: \(shown)")
      #expect(try String(contentsOf: saved, encoding: .utf8) == kept)
    } else {  // the run's and the file's owner are one: it replaces its own file
      #expect(process.terminationStatus == 0, "\(said)")
    }
  }

  /// `chattr` through a shell: whether it took (a file system without attributes refuses).
  static func chattr(_ flag: String, _ path: String) throws -> Bool {
    let outcome = try Command.run(
      ["-c", "chattr \(flag) \"$0\"", path], executable: URL(fileURLWithPath: "/bin/sh"))
    return outcome.status == 0
  }

  /// A saved file or a data directory with an attribute no permission lifts (`chattr +i`,
  /// `+a`): no save could replace the file, no file be made in the folder. The run stops before
  /// its first action, naming the attribute (it ran every action, then lost them; and said
  /// `chmod u+rwx` of an immutable folder, which cannot help).
  @Test(arguments: [("+i", "file"), ("+a", "file"), ("+i", "folder")])
  func anAttributeNoSaveGetsPastStopsTheRunBeforeItsFirstAction(flag: String, on: String) throws {
    let directory = try makeTemporaryDirectory("attribute-save")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tally.lua")
    try DataDirectoryMessagesTests.feature.write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    let first = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", data.path], input: "increment\n")
    #expect(first.status == 0, "\(first.errors)")
    let saved = data.appendingPathComponent("tally.saved.lua")
    let target = on == "file" ? saved.path : data.path
    let kept = try String(contentsOf: saved, encoding: .utf8)
    try #require(try Self.chattr(flag, target), "chattr \(flag) did not take here")
    defer { _ = try? Self.chattr(flag == "+i" ? "-i" : "-a", target) }
    let outcome = try Command.run(
      ["run", feature.path, "--wait", "0", "--data", data.path], input: "increment\n")
    #expect(outcome.status == 1, "\(outcome.errors)")
    let name = flag == "+i" ? "immutable" : "append-only"
    #expect(outcome.errors.contains("\(target) is \(name)"), "\(outcome.errors)")
    #expect(outcome.errors.contains("chattr \(flag == "+i" ? "-i" : "-a") \(target)"))
    #expect(!outcome.output.contains("count = 2"), "an action ran: \(outcome.output)")
    #expect(try String(contentsOf: saved, encoding: .utf8) == kept)
  }
}
