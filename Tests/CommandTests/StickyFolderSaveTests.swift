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
}
