import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `LuaFeature.holdsLoadedCode`: whether the feature's file and its modules' files hold the code
/// running, which a hot reload asks before reloading. Any byte of either changed says no; put
/// back, yes; a swap that failed since says no until one succeeds.
@Suite struct HoldsLoadedCodeTests {
  static let source = """
    local step = require("step")
    return {
      initial_state = function() return { count = 0 } end,
      reduce = function(state) state.count = state.count + step.size end,
    }
    """

  @Test func eachFileChangedOrPutBack() throws {
    let directory = try makeTemporaryDirectory("holds")
    let file = directory.appendingPathComponent("counter.lua")
    let module = directory.appendingPathComponent("step.lua")
    try Self.source.write(to: file, atomically: false, encoding: .utf8)
    try "return { size = 1 }".write(to: module, atomically: false, encoding: .utf8)
    let feature = try LuaFeature(contentsOf: file)
    #expect(feature.holdsLoadedCode(file))

    try (Self.source + " ").write(to: file, atomically: false, encoding: .utf8)
    #expect(!feature.holdsLoadedCode(file))
    try feature.swap(toSource: LuaString(bytes: try LuaSourceFile.bytes(of: file)))
    #expect(feature.holdsLoadedCode(file))

    try "return { size = 2 }".write(to: module, atomically: false, encoding: .utf8)
    #expect(!feature.holdsLoadedCode(file))
    try "return { size = 1 }".write(to: module, atomically: false, encoding: .utf8)
    #expect(feature.holdsLoadedCode(file))

    // A swap that failed: the file's bytes are the code running, and still it is not so.
    #expect(throws: LuaFeatureError.self) { try feature.swap(toSource: "return {") }
    #expect(!feature.holdsLoadedCode(file))
    try feature.swap(toSource: LuaString(bytes: try LuaSourceFile.bytes(of: file)))
    #expect(feature.holdsLoadedCode(file))

    try FileManager.default.removeItem(at: module)
    #expect(!feature.holdsLoadedCode(file))
    try "return { size = 1 }".write(to: module, atomically: false, encoding: .utf8)
    try FileManager.default.removeItem(at: file)
    #expect(!feature.holdsLoadedCode(file))
  }

  /// A module required in `reduce` (after the load) counts: a save of the same bytes is the
  /// code running, an edit of the module is not. (Its digest joined the load's, which a
  /// fingerprint of the load lacked, and every save reloaded: a helper's finding.) A file that
  /// cannot be read fails the reload, and put back, is not the code running until loaded.
  @Test func aModuleRequiredLaterAndAFileDeleted() throws {
    let directory = try makeTemporaryDirectory("holds-lazy")
    let file = directory.appendingPathComponent("lazy_counter.lua")
    let module = directory.appendingPathComponent("lazy.lua")
    let source = """
      return {
        initial_state = function() return { count = 0 } end,
        reduce = function(state) state.count = state.count + require("lazy").n end,
      }
      """
    try source.write(to: file, atomically: false, encoding: .utf8)
    try "return { n = 1 }".write(to: module, atomically: false, encoding: .utf8)
    let feature = try LuaFeature(contentsOf: file)
    #expect(feature.holdsLoadedCode(file))
    try feature.step(["type": "inc"])
    #expect(feature.holdsLoadedCode(file))
    try "return { n = 2 }".write(to: module, atomically: false, encoding: .utf8)
    #expect(!feature.holdsLoadedCode(file))
    try "return { n = 1 }".write(to: module, atomically: false, encoding: .utf8)
    #expect(feature.holdsLoadedCode(file))

    try FileManager.default.removeItem(at: file)
    #expect(throws: (any Error).self) { try feature.swap(toContentsOf: file) }
    try source.write(to: file, atomically: false, encoding: .utf8)
    #expect(!feature.holdsLoadedCode(file))
    try feature.swap(toContentsOf: file)
    #expect(feature.holdsLoadedCode(file))
  }
}
