import ComposableLua
import Foundation
import TestSupport
import Testing

/// `TestStore.new{ feature = ... }` takes a module name, as `require` does. A new user gave the
/// file's name (`"notes.lua"`) and was told only that there is no such module.
@Suite struct TestStoreFeatureNameTests {
  @Test(arguments: [
    ("notes.lua", "notes"), ("features/notes.lua", "features.notes"),
  ])
  func aFilesNameSaysTheModulesName(given: String, module: String) async throws {
    let folder = try makeTemporaryDirectory("feature-name")
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("features"), withIntermediateDirectories: true)
    let feature = """
      return { initial_state = function() return {} end, reduce = function() end }
      """
    try Data(feature.utf8).write(to: folder.appendingPathComponent("notes.lua"))
    try Data(feature.utf8).write(to: folder.appendingPathComponent("features/notes.lua"))
    let failures = try await PathsInFixturesTests.failures(
      of: "TestStore.new{ feature = \"\(given)\" }", in: folder)
    #expect(
      failures.first?.hasSuffix(
        "TestStore.new: no module \"\(given)\" beside \(folder.appendingPathComponent("fixture_test.lua").path). To fix, name it as "
          + "require does, without .lua: feature = \"\(module)\"") == true, "\(failures)")
  }

  /// No module of that name either: no hint.
  @Test func aNameOfNoModuleAtAllSaysOnlyThat() async throws {
    let folder = try makeTemporaryDirectory("feature-name-none")
    defer { try? FileManager.default.removeItem(at: folder) }
    let failures = try await PathsInFixturesTests.failures(
      of: "TestStore.new{ feature = \"gone.lua\" }", in: folder)
    #expect(
      failures.first?.hasSuffix("TestStore.new: no module \"gone.lua\" beside \(folder.appendingPathComponent("fixture_test.lua").path)")
        == true, "\(failures)")
  }

  /// What the test does next with the store that was not made says so, not "not a TestStore".
  @Test func theCallsAfterAFailedNewSayItFailed() async throws {
    let folder = try makeTemporaryDirectory("feature-name-after")
    defer { try? FileManager.default.removeItem(at: folder) }
    let failures = try await PathsInFixturesTests.failures(
      of: "local store = TestStore.new{ feature = \"gone\" }\nstore:send(\"x\")", in: folder)
    #expect(failures.count == 2, "\(failures)")
    #expect(
      failures.last?.hasSuffix("send: this TestStore was not made: its TestStore.new failed (above)")
        == true, "\(failures)")
  }
}
