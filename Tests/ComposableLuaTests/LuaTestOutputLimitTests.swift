import ComposableLua
import Foundation
import TestSupport
import Testing

/// What a Lua test prints is kept with its result up to `LuaTestResult.outputLimit` bytes: a
/// test printing in a loop, or one huge line, fills the report, not the runner's memory.
@Suite struct LuaTestOutputLimitTests {
  func run(_ body: String) async throws -> [LuaTestResult] {
    let directory = try makeTemporaryDirectory("output-limit")
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = """
      it("prints", function()
      \(body)
      end)
      it("prints a little", function() print("after") end)
      """
    return await LuaTestRunner().run(source: source, name: "print_test.lua", directory: directory)
  }

  @Test func manyLinesAreKeptUpToTheLimitAndCounted() async throws {
    // 20,000 lines of 100 bytes: 2,000,000 bytes, twice the limit.
    let results = try await run(
      #"local line = string.rep("x", 100) for _ = 1, 20000 do print(line) end"#)
    let output = results[0].output
    #expect(results[0].outcome == .passed)
    let kept = output.dropLast()
    #expect(kept.reduce(0) { $0 + $1.utf8.count } == LuaTestResult.outputLimit)
    #expect(kept.count == LuaTestResult.outputLimit / 100 + 1)  // the last one cut
    let dropped = 20_000 - LuaTestResult.outputLimit / 100
    let bytes = 2_000_000 - LuaTestResult.outputLimit
    #expect(
      output.last
        == "… \(dropped) more lines (\(bytes) bytes) printed, not kept: a test's output is kept up "
        + "to 1048576 bytes")
    // The next test starts with nothing printed.
    #expect(results[1].output == ["after"])
  }

  @Test func oneHugeLineIsCutAtTheLimit() async throws {
    let results = try await run(#"print("é" .. string.rep("y", 3 * 1024 * 1024))"#)
    let output = results[0].output
    #expect(output.count == 2)
    #expect(output[0].utf8.count == LuaTestResult.outputLimit)
    #expect(output[0].hasPrefix("éyyy"))
    #expect(
      output[1]
        == "… 1 more line (\(3 * 1024 * 1024 + 2 - LuaTestResult.outputLimit) bytes) printed, "
        + "not kept: a test's output is kept up to 1048576 bytes")
  }

  @Test func aCharacterAcrossTheLimitIsNotCut() async throws {
    let results = try await run(#"print(string.rep("y", 1024 * 1024 - 1) .. "é!")"#)
    let output = results[0].output
    #expect(output[0].utf8.count == LuaTestResult.outputLimit - 1)
    #expect(output[0].utf8.allSatisfy { $0 == UInt8(ascii: "y") })
    #expect(output[1].hasPrefix("… 1 more line (3 bytes) printed"))
  }

  /// Twenty tests printing 2 MiB each: the first sixteen keep their MiB, the rest nothing but
  /// the line that says so, naming the file's limit.
  @Test func theTestsOfAFileKeepSixteenMiBInAll() async throws {
    let directory = try makeTemporaryDirectory("output-limit")
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = """
      for n = 1, 20 do
        it("prints " .. n, function()
          local line = string.rep("z", 1024 * 1024)
          print(line) print(line)
        end)
      end
      """
    let results = await LuaTestRunner().run(
      source: source, name: "many_test.lua", directory: directory)
    #expect(results.count == 20)
    let kept = results.map { $0.output.dropLast().reduce(0) { $0 + $1.utf8.count } }
    #expect(kept.reduce(0, +) == LuaTestResult.outputLimitPerFile)
    #expect(kept.prefix(16).allSatisfy { $0 == LuaTestResult.outputLimit })
    #expect(kept.suffix(4).allSatisfy { $0 == 0 })
    #expect(
      results.last?.output.last
        == "… 2 more lines (2097152 bytes) printed, not kept: the tests of a file keep 16777216 "
        + "bytes of output in all")
  }

  @Test func outputUnderTheLimitIsKeptWhole() async throws {
    let results = try await run(#"print("one") print("two\nlines")"#)
    #expect(results[0].output == ["one", "two\nlines"])
  }
}
