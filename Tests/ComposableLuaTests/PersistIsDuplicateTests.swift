import Clocks
import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// The seed's caching reducer, as `composable.persist` has it: `debounce = 0` saves after every
/// action that changed the state, and `is_duplicate(old, new)` skips a save not worth writing.
@Suite struct PersistIsDuplicateTests {
  static let source = """
    local composable = require("composable")
    return {
      initial_state = function() return { count = 0, seen = 0 } end,
      reduce = function(state, action)
        if action.type == "add" then state.count = state.count + action.n end
        state.seen = state.seen + 1
      end,
      persist = composable.persist{
        path = "count.saved.lua", select = "count", debounce = 0,
        -- Only a change of 10 or more is worth a write.
        is_duplicate = function(old, new) return old ~= nil and math.abs(new - old) < 10 end,
      },
    }
    """

  static func saved(_ files: FileClient) async throws -> LuaValue? {
    guard let bytes = try? await files.read("count.saved.lua") else { return nil }
    return try LuaDataFile.read(bytes, chunkName: "saved")
  }

  @Test func eachActionSavesUnlessItIsADuplicate() async throws {
    let files = FileClient.inMemory()
    let clock = TestClock()
    let store = try testStore(Self.source) {
      $0.files = files
      $0.clock = clock
    }
    await store.send(["type": "add", "n": 5]) {
      $0.count = 5
      $0.seen = 1
    }
    await store.finish()
    #expect(try await Self.saved(files) == 5)  // nothing saved before: old is nil
    await store.send(["type": "add", "n": 3]) {
      $0.count = 8
      $0.seen = 2
    }
    await store.finish()
    #expect(try await Self.saved(files) == 5)  // 8 is within 10 of 5: a duplicate
    await store.send(["type": "add", "n": 20]) {
      $0.count = 28
      $0.seen = 3
    }
    await store.finish()
    #expect(try await Self.saved(files) == 28)  // compared with 5, the last saved, not with 8
  }

  /// What was restored is the first `old`: a restart does not write it again.
  @Test func theRestoredValueIsTheFirstOld() async throws {
    let files = FileClient.inMemory(["count.saved.lua": "return 40\n"])
    let feature = try LuaFeature(source: Self.source, file: "count.lua")
    try await feature.restorePersisted(files: files)
    #expect(try feature.state().count == 40)
    let store = TestStore(
      initialState: try feature.state(),
      reducer: { LuaFeatureReducer<LuaValue>(feature: feature, dependencies: $0) },
      dependencies: {
        $0.files = files
        $0.clock = TestClock()
      })
    try await files.write("count.saved.lua", Array("return 40 -- untouched\n".utf8))
    await store.send(["type": "add", "n": 1]) {
      $0.count = 41
      $0.seen = 1
    }
    await store.finish()
    #expect(String(decoding: try await files.read("count.saved.lua"), as: UTF8.self)
      == "return 40 -- untouched\n")
  }

  @Test func isDuplicateMustBeAFunction() {
    let source = Self.source.replacingOccurrences(
      of: "is_duplicate = function(old, new) return old ~= nil and math.abs(new - old) < 10 end",
      with: "is_duplicate = true")
    #expect(throws: LuaFeatureError.self) { _ = try LuaFeature(source: source, file: "c.lua") }
    do { _ = try LuaFeature(source: source, file: "c.lua") } catch {
      #expect("\(error)".contains("persist: is_duplicate must be a function(old, new), got boolean"))
    }
  }
}
