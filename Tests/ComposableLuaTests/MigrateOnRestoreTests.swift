import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// A saved state keeps the fingerprint of the code that saved it; a restore by other code runs
/// the feature's `migrate(state)` on it, as a hot reload runs it on the state in memory. A
/// `migrate` that raises leaves the file as it was and the state as it was before the restore,
/// and no save replaces the file.
@Suite struct MigrateOnRestoreTests {
  static let v1 = MigrateOnRestoreSources.v1
  static let v2 = MigrateOnRestoreSources.v2

  static func saved(_ files: FileClient) async throws -> String {
    String(decoding: try await files.read("tally.saved.lua"), as: UTF8.self)
  }

  /// `v1` with `n = 3`, saved to `files` as `v1` saves it.
  static func savedByV1(_ files: FileClient) async throws -> LuaFeature {
    let feature = try LuaFeature(source: v1, file: "tally.lua")
    try feature.setState(["n": 3])
    try await files.write("tally.saved.lua", try #require(try feature.persistedFile()))
    return feature
  }

  @Test func theSavedFileNamesTheCodeThatSavedIt() async throws {
    let files = FileClient.inMemory()
    let v1 = try await Self.savedByV1(files)
    let text = try await Self.saved(files)
    #expect(v1.codeFingerprint.wholeMatch(of: /fnv1a64:[0-9a-f]{16}/) != nil)
    #expect(
      text.hasPrefix(
        """
        -- The state tally.lua saved. composable reads it back as Lua data: literals only.
        -- code: \(v1.codeFingerprint) (the code that saved it: other code runs its \
        migrate(state) on it)
        return {
        """), "\(text)")
    // The same code has the same fingerprint; other code, another.
    let code = v1.codeFingerprint
    #expect(try LuaFeature(source: Self.v1, file: "tally.lua").codeFingerprint == code)
    #expect(try LuaFeature(source: Self.v2, file: "tally.lua").codeFingerprint != code)
    // Still Lua data, read back to the state alone.
    #expect(try LuaDataFile.read(Array(text.utf8), chunkName: "tally.saved.lua") == ["n": 3])
  }

  /// A module the feature requires is part of its code: a change there is other code too.
  @Test func aRequiredModuleIsPartOfTheFingerprint() throws {
    let directory = try makeTemporaryDirectory("fingerprint")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("tally.lua")
    let helper = directory.appendingPathComponent("helper.lua")
    try """
      local helper = require("helper")
      return { reduce = function(state) state.n = helper.next(state.n) end }
      """.write(to: feature, atomically: true, encoding: .utf8)
    try "return { next = function(n) return (n or 0) + 1 end }".write(
      to: helper, atomically: true, encoding: .utf8)
    let first = try LuaFeature(contentsOf: feature).codeFingerprint
    #expect(try LuaFeature(contentsOf: feature).codeFingerprint == first)
    try "return { next = function(n) return (n or 0) + 2 end }".write(
      to: helper, atomically: true, encoding: .utf8)
    let changed = try LuaFeature(contentsOf: feature)
    #expect(changed.codeFingerprint != first)
    // A reload of the same code gives what a fresh load gives.
    try changed.swap(toSource: String(contentsOf: feature, encoding: .utf8))
    #expect(changed.codeFingerprint == (try LuaFeature(contentsOf: feature).codeFingerprint))
  }

  @Test func aStateSavedByOtherCodeIsMigratedAndSavedUpgraded() async throws {
    let files = FileClient.inMemory()
    _ = try await Self.savedByV1(files)
    let v2 = try LuaFeature(source: Self.v2, file: "tally.lua")
    let loaded = try await v2.restorePersisted(files: files) { Issue.record("\($0)") }
    guard case .saved = loaded else {
      Issue.record("expected the saved state: \(loaded)")
      return
    }
    #expect(try v2.state() == ["count": 30])
    let changes = try #require(try v2.restoreMigration?.get())
    #expect(
      LuaValue.notation(of: changes, colored: false) == "+ count = 30\n\u{2212} n = 3")
    // The upgraded state is pending: a host's save at exit writes it, with the new code's
    // fingerprint, and the next start on v2 restores it without migrating again.
    try await v2.savePending(files: files)
    #expect(try await Self.saved(files).contains("-- code: \(v2.codeFingerprint) "))
    let again = try LuaFeature(source: Self.v2, file: "tally.lua")
    try await again.restorePersisted(files: files) { Issue.record("\($0)") }
    #expect(try again.state() == ["count": 30])
    #expect(again.restoreMigration == nil)
  }

  /// A file saved before fingerprints were kept (or by hand) may be of any code: it is migrated.
  @Test func aFileWithoutAFingerprintIsMigrated() async throws {
    let files = FileClient.inMemory(["tally.saved.lua": "return { n = 2 }\n"])
    let v2 = try LuaFeature(source: Self.v2, file: "tally.lua")
    try await v2.restorePersisted(files: files) { Issue.record("\($0)") }
    #expect(try v2.state() == ["count": 20])
  }

  /// Only exactly 16 lowercase hex digits, then the end of the line or a space, are a
  /// fingerprint: a 17th digit, or any other character after them, makes it other code,
  /// and `migrate` runs, though the first 16 are those of the code loaded now.
  @Test(arguments: [
    ("99 (the code that saved it)\n", true), ("9\n", true), ("x\n", true),
    ("-\n", true), ("\tx\n", true), (" (the code that saved it)\n", false), ("\n", false),
    ("\r\n", false), (" \n", false),
  ])
  func aFingerprintIsExactly16HexDigits(after: String, migrates: Bool) async throws {
    let v2 = try LuaFeature(source: Self.v2, file: "tally.lua")
    let header = "-- code: \(v2.codeFingerprint)\(after)"
    let files = FileClient.inMemory(["tally.saved.lua": header + "return { count = 3, n = 1 }\n"])
    try await v2.restorePersisted(files: files) { Issue.record("\($0)") }
    #expect(try v2.state() == (migrates ? ["count": 13] : ["count": 3, "n": 1]), "\(header)")
    #expect((v2.restoreMigration != nil) == migrates)
  }

  /// A feature without `migrate` restores what was saved, whatever code saved it, as before.
  @Test func withoutMigrateTheSavedStateIsRestoredAsItIs() async throws {
    let files = FileClient.inMemory()
    _ = try await Self.savedByV1(files)
    let other = try LuaFeature(source: Self.v1 + "\n-- changed\n", file: "tally.lua")
    try await other.restorePersisted(files: files) { Issue.record("\($0)") }
    #expect(try other.state() == ["n": 3])
    #expect(other.restoreMigration == nil)
  }

  @Test func aMigrateThatRaisesLosesNothing() async throws {
    let files = FileClient.inMemory()
    _ = try await Self.savedByV1(files)
    let before = try await Self.saved(files)
    let broken = Self.v2.replacingOccurrences(
      of: "state.n = nil", with: "state.n = nil\n    error(\"cannot upgrade\")")
    let v2 = try LuaFeature(source: broken, file: "tally.lua")
    let error = await #expect(throws: LuaFeatureError.self) {
      try await v2.restorePersisted(files: files) { Issue.record("\($0)") }
    }
    #expect(
      error?.description.hasPrefix(
        "tally.lua did not load: tally.saved.lua: the state saved there was saved by other code, "
          + "and migrate(state) failed on it: tally.lua:8: cannot upgrade\n") == true,
      "\(String(describing: error))")
    #expect(
      error?.description.hasSuffix(
        "The file is left as it was, and nothing is saved over it. To fix, make migrate(state) "
          + "handle that state, or move the file away to start from initial_state()") == true,
      "\(String(describing: error))")
    // The state is the initial one, not the saved one half upgraded, and no save replaces the
    // file, even after an action.
    #expect(try v2.state() == ["count": 0])
    var dependencies = DependencyValues.live
    dependencies.files = files
    let errors = Errors()
    let store = Store(
      initialState: LuaFeatureHandle(feature: v2),
      reducer: LuaFeatureReducer<LuaFeatureHandle>(
        feature: v2, dependencies: dependencies, onError: { errors.append($0) }))
    await store.send("inc").finish()
    #expect(errors.all.map(\.description).contains { $0.contains("tally.saved.lua was not saved") })
    #expect(try v2.state() == ["count": 1])
    await #expect(throws: (any Error).self) { try await v2.savePending(files: files) }
    #expect(try await Self.saved(files) == before)
  }
}
