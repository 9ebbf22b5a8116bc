import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A session file's `feature` against every class of bad path: it is relative to the session
/// file's folder and stays under it, symlinks included, and what it names is read only if it is
/// a regular file, never waited on. A feature named on the command line is the user's choice.
@Suite struct PathsInSessionsTests {
  static let feature = """
    return { reduce = function(state, action) state.n = (state.n or 0) + 1 end }
    """

  /// Writes a session on `feature` into `folder`: its file.
  static func session(feature: String, in folder: URL) throws -> URL {
    let file = folder.appendingPathComponent("s.lua")
    try SessionRecording(
      feature: feature, code: "", env: .nil, initialState: [:],
      actions: [RecordedAction(action: ["type": "go"], fromEffect: false, time: 0)]
    ).write(to: file)
    return file
  }

  @Test func aFeatureNoDataPathTakesIsRefusedNamingTheField() throws {
    let sandbox = try PathSandbox("session-invalid")
    defer { sandbox.remove() }
    for (name, bytes) in HostilePath.invalid(base: sandbox.base) {
      // A session's text is a string: bytes that are not UTF-8 are refused when it is read.
      guard let text = String(validating: bytes, as: UTF8.self) else { continue }
      let file = try Self.session(feature: text, in: sandbox.root)
      let recording = try SessionRecording.read(from: file)
      #expect(
        throws: SessionFileError.self, "\(name)",
        performing: { try recording.featureFile(besideSession: file) })
      // (As read back: byte 127 does not survive the writer yet, which is issue 27's item 6.)
      let read = Array(recording.feature.utf8)
      do { _ = try recording.featureFile(besideSession: file) } catch {
        #expect(
          error.description == "s.lua: feature: \(HostilePath.refusal(read)). To fix, replay "
            + "it on a feature you name: composable replay --feature FILE s.lua", "\(name)")
      }
      #expect(sandbox.neighbours() == PathSandbox.untouched, "\(name)")
    }
  }

  /// What the feature names must be a regular file under the folder: a symlink out (to a file
  /// beside, or to `/dev/zero`) is refused as outside; a FIFO, a socket or a directory is
  /// refused by the reader, without waiting.
  @Test(arguments: HostilePath.Special.allCases)
  func whatIsNotARegularFileUnderTheFolderIsRefused(_ special: HostilePath.Special) throws {
    let sandbox = try PathSandbox("session-special")
    defer { sandbox.remove() }
    try sandbox.make(special)
    let file = try Self.session(feature: special.rawValue, in: sandbox.root)
    let recording = try SessionRecording.read(from: file)
    let message: String
    do {
      let url = try recording.featureFile(besideSession: file)
      _ = try SessionPlayback.run(recording, feature: url)
      Issue.record("\(special) was replayed")
      return
    } catch {
      message = "\(error)"
    }
    let toFix = "To fix, replay it on a feature you name: composable replay --feature FILE s.lua"
    let folder = sandbox.root.resolvingSymlinksInPath().path
    let expected =
      switch special {
      case .symlinkOut:
        "s.lua: feature: door/secret.txt leads outside the session file's folder (through a "
          + "symlink, to \(sandbox.base.path)/outside/secret.txt). \(toFix)"
      case .deviceThroughSymlink:
        "s.lua: feature: zero leads outside the session file's folder (through a symlink, to "
          + "/dev/zero). \(toFix)"
      case .fifo:
        "\(folder)/pipe did not load: cannot read it: it is a FIFO (named pipe), not a regular "
          + "file; give a file"
      case .socket:
        "\(folder)/sock did not load: cannot read it: it is a socket, not a regular file; give a "
          + "file"
      case .directory:
        "s.lua: feature: folder is a folder, not a feature's file. \(toFix)"
      }
    #expect(message == expected)
    #expect(sandbox.neighbours() == PathSandbox.untouched)
  }

  /// Through `composable replay`: a session whose feature climbs out, or names a FIFO, ends at
  /// once with its error; `--feature` names one anywhere, as the user chooses.
  @Test func replayRefusesAFeatureOutsideTheFolderAndTakesOneNamed() throws {
    let sandbox = try PathSandbox("session-command")
    defer { sandbox.remove() }
    let outside = sandbox.base.appendingPathComponent("outside/feature.lua")
    try Data(Self.feature.utf8).write(to: outside)
    let climbing = try Self.session(feature: "../outside/feature.lua", in: sandbox.root)
    let refused = try Command.run(["replay", climbing.path])
    #expect(refused.status == 1)
    #expect(
      refused.errors.contains(
        #"s.lua: feature: "../outside/feature.lua": '..' is refused; the path must stay under "#
          + "the directory"), "\(refused.errors)")
    let named = try Command.run(["replay", climbing.path, "--feature", outside.path])
    #expect(named.status == 0, "\(named.errors)")
    #expect(named.output.contains("replayed 1 action of s.lua on feature.lua"))
    try sandbox.make(.fifo)
    let fifo = try Self.session(feature: "pipe", in: sandbox.root)
    let waited = try Command.run(["replay", fifo.path])
    #expect(waited.status == 1)
    #expect(waited.errors.contains("pipe did not load: cannot read it: it is a FIFO"))
  }
}
