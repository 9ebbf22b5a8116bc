import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A Lua test's fixture directory (`TestStore.new{ files = "..." }`) against every class of bad
/// path: relative to the test's folder and under it, symlinks included; copied as the live
/// client reads (regular files, directories, links kept as links), a FIFO or a socket in it
/// refused without waiting; and the copy confines what a link in it reaches.
@Suite struct PathsInFixturesTests {
  static let reader = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return {} end,
      reduce = function(state, action)
        if action.type == "read" then
          return effect.file.read{ path = action.path, response = "done" }
        elseif action.type == "done" then
          state.result = action.ok and action.contents or action.error
        end
      end,
    }
    """

  /// Runs a Lua test file made of `body` (the inside of one `it`) in `folder`: its failures.
  static func failures(of body: String, in folder: URL) async throws -> [String] {
    try Data(reader.utf8).write(to: folder.appendingPathComponent("reader.lua"))
    let file = folder.appendingPathComponent("fixture_test.lua")
    try Data(
      """
      local TestStore = require("composable.test").TestStore
      describe("a fixture", function()
        it("is checked", function()
          \(body)
        end)
      end)
      """.utf8
    ).write(to: file)
    let results = await LuaTestRunner().run(file: file)
    try #require(results.count == 1)
    guard case let .failed(failures) = results[0].outcome else { return [] }
    return failures
  }

  @Test func aPathNoDataPathTakesIsRefusedNamingTheField() async throws {
    let sandbox = try PathSandbox("fixture-invalid")
    defer { sandbox.remove() }
    for (name, bytes) in HostilePath.invalid(base: sandbox.base) {
      let failures = try await Self.failures(
        of: "TestStore.new{ feature = \"reader\", files = \(HostilePath.luaLiteral(bytes)) }",
        in: sandbox.root)
      let expected = "TestStore.new: files: \(HostilePath.refusal(bytes))"
      #expect(failures.contains { $0.contains(expected) }, "\(name): \(failures)")
      #expect(sandbox.neighbours() == PathSandbox.untouched, "\(name)")
    }
  }

  /// A fixture named through a symlink that leads out of the test's folder is refused, however
  /// plain its name.
  @Test func aFixtureThroughASymlinkOutIsRefused() async throws {
    let sandbox = try PathSandbox("fixture-out")
    defer { sandbox.remove() }
    try sandbox.make(.symlinkOut)
    let failures = try await Self.failures(
      of: #"TestStore.new{ feature = "reader", files = "door" }"#, in: sandbox.root)
    let real = URL(fileURLWithPath: sandbox.base.appendingPathComponent("data").path)
      .resolvingSymlinksInPath().path
    #expect(
      failures.contains {
        $0.contains(
          "TestStore.new: files: door leads outside the test's folder (through a symlink); a "
            + "fixture directory must be under \(real)")
      }, "\(failures)")
  }

  /// A fixture that holds a FIFO or a socket is refused, naming it, without waiting on it;
  /// one that is itself a FIFO is no directory.
  @Test(arguments: [HostilePath.Special.fifo, .socket])
  func aFixtureHoldingASpecialFileIsRefused(_ special: HostilePath.Special) async throws {
    let sandbox = try PathSandbox("fixture-special")
    defer { sandbox.remove() }
    let fixture = sandbox.root.appendingPathComponent("fx")
    try FileManager.default.createDirectory(at: fixture, withIntermediateDirectories: true)
    try sandbox.make(special, in: fixture)
    let failures = try await Self.failures(
      of: #"TestStore.new{ feature = "reader", files = "fx" }"#, in: sandbox.root)
    #expect(
      failures.contains {
        $0.contains(
          "TestStore.new: files: in fx: \(special.rawValue) is not a regular file, a directory or "
            + "a symlink (a FIFO, a device or a socket?); a fixture holds only those")
      }, "\(failures)")
    try sandbox.make(special)
    let named = try await Self.failures(
      of: "TestStore.new{ feature = \"reader\", files = \"\(special.rawValue)\" }",
      in: sandbox.root)
    #expect(named.contains { $0.contains("TestStore.new: files: no fixture directory") })
  }

  /// Links in a fixture are copied as links, and the copy's client refuses the ones that lead
  /// out of it (`/dev/zero`, the folder beside), as the data directory's does; a directory
  /// where a file is meant is refused too.
  @Test func linksInACopiedFixtureCannotReachOut() async throws {
    let sandbox = try PathSandbox("fixture-links")
    defer { sandbox.remove() }
    let fixture = sandbox.root.appendingPathComponent("fx")
    try FileManager.default.createDirectory(at: fixture, withIntermediateDirectories: true)
    for special in [HostilePath.Special.symlinkOut, .deviceThroughSymlink, .directory] {
      try sandbox.make(special, in: fixture)
    }
    try Data("fine".utf8).write(to: fixture.appendingPathComponent("plain.txt"))
    let failures = try await Self.failures(
      of: """
        local store = TestStore.new{ feature = "reader", files = "fx" }
          local function read(path, result)
            store:send({ type = "read", path = path })
            store:receive("done", function(s) s.result = result end)
          end
          read("plain.txt", "fine")
          read("folder/inner.txt", "inside")
          read("door/secret.txt", "door/secret.txt: it leads outside the root (through a symlink)")
          read("zero", "zero: it leads outside the root (through a symlink)")
          read("folder", "folder: is a directory")
        """, in: sandbox.root)
    #expect(failures == [])
    #expect(sandbox.neighbours() == PathSandbox.untouched)
  }
}
