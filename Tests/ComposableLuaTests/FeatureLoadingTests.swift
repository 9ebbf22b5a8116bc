import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

@Suite struct FeatureLoadingTests {
  @Test func theCounterExampleLoadsWithItsInitialState() throws {
    let feature = try LuaFeature(contentsOf: URL(fileURLWithPath: example("counter/counter.lua")))
    #expect(try feature.state() == ["count": 0])
  }

  @Test func aSyntaxErrorNamesTheFileAndLine() {
    let error = featureError { _ = try LuaFeature(source: "local M = {}\nfunction M.reduce(\nreturn M", file: "broken.lua") }
    #expect(error == .load(
      file: "broken.lua",
      message: "syntax error: broken.lua:3: <name> or '...' expected near 'return'"))
  }

  @Test func anErrorWhileLoadingNamesTheFileAndLine() {
    let error = featureError { _ = try LuaFeature(source: "local x = nil\nreturn x.y", file: "boom.lua") }
    guard case let .load(file, message) = error else { Issue.record("expected a load error"); return }
    #expect(file == "boom.lua")
    #expect(message.hasPrefix("boom.lua:2: attempt to index a nil value (local 'x')"))
  }

  /// A load that fails in the library (a module not found, `persist` given a wrong field) says
  /// where in the feature, with no frame of the sandbox's or the library's own chunks (`sandbox:
  /// 66: in global 'require'`, `composable:1129: in field 'persist'`: a new user's finding).
  @Test func aLoadErrorShowsNoLibraryFrames() {
    for (source, line) in [
      ("local m = require(\"nothere\")\nreturn m", 1),
      (
        "local composable = require(\"composable\")\nlocal F = {}\n"
          + "F.persist = composable.persist{ path = 5 }\nreturn F", 3
      ),
    ] {
      let error = featureError { _ = try LuaFeature(source: source, file: "lib.lua") }
      guard case let .load(_, message) = error else {
        Issue.record("expected a load error, got \(String(describing: error))")
        continue
      }
      #expect(message.hasPrefix("lib.lua:\(line): "), "\(message)")
      #expect(message.contains("\tlib.lua:\(line): in main chunk"), "\(message)")
      #expect(!message.contains("\tsandbox:") && !message.contains("\tcomposable:"), "\(message)")
    }
  }

  @Test func aFeatureWithoutReduceIsRefused() {
    #expect(featureError { _ = try LuaFeature(source: "return {}", file: "empty.lua") }
      == .load(file: "empty.lua", message: "the returned table has no reduce function"))
    #expect(featureError { _ = try LuaFeature(source: "return { reduce = 42 }", file: "odd.lua") }
      == .load(file: "odd.lua", message: "reduce must be a function, got integer"))
    #expect(featureError { _ = try LuaFeature(source: "return 7", file: "seven.lua") }
      == .load(file: "seven.lua", message: "a feature must return a table with a reduce function, got integer"))
  }

  @Test func aMissingFileIsAClearError() {
    let error = featureError { _ = try LuaFeature(contentsOf: URL(fileURLWithPath: "/nowhere/x.lua")) }
    #expect(error == .load(file: "/nowhere/x.lua", message: "cannot read it: no such file"))
  }

  /// A directory says so; a byte that is not UTF-8 in a string literal is that byte, as
  /// `lua5.4` reads the file.
  @Test func aDirectoryIsNamedAndBytesThatAreNotTextAreKept() throws {
    let directory = try makeTemporaryDirectory("feature")
    defer { try? FileManager.default.removeItem(at: directory) }
    let folder = directory.appendingPathComponent("folder.lua")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
    #expect(featureError { _ = try LuaFeature(contentsOf: folder) }
      == .load(file: folder.path, message: "cannot read it: it is a directory; give the .lua file"))
    let latin1 = directory.appendingPathComponent("latin1.lua")
    try Data(
      "-- ok\r\nlocal s = 'caf".utf8 + [0xE9] + [0xFF]
        + Data("'\nreturn { initial_state = function() return { s = s, n = #s } end, reduce = function() end }\n".utf8)
    ).write(to: latin1)
    let feature = try LuaFeature(contentsOf: latin1)
    #expect(try feature.state() == ["s": .string(LuaString(bytes: Array("caf".utf8) + [0xE9, 0xFF])), "n": 5])
  }

  /// A script longer than one read of the file (64 KiB), and one whose path goes through a
  /// file as if it were a folder, a symlink to the script, and an empty script.
  @Test func aLongScriptIsReadWholeAndOddPathsSayWhy() throws {
    let directory = try makeTemporaryDirectory("feature")
    defer { try? FileManager.default.removeItem(at: directory) }
    let long = directory.appendingPathComponent("long.lua")
    let padding = String(repeating: "-- padding, to make the file long\n", count: 6_000)
    try (padding + "return { initial_state = function() return { n = 7 } end, "
      + "reduce = function() end }").write(to: long, atomically: true, encoding: .utf8)
    #expect(try LuaFeature(contentsOf: long).state() == ["n": 7])
    let link = directory.appendingPathComponent("link.lua")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: long)
    #expect(try LuaFeature(contentsOf: link).state() == ["n": 7])
    let throughFile = long.appendingPathComponent("x.lua")
    #expect(featureError { _ = try LuaFeature(contentsOf: throughFile) }
      == .load(file: throughFile.path, message: "cannot read it: no such file"))
    let empty = directory.appendingPathComponent("empty.lua")
    try Data().write(to: empty)
    #expect(featureError { _ = try LuaFeature(contentsOf: empty) }
      == .load(
        file: "empty.lua", message: "a feature must return a table with a reduce function, got nothing"))
  }

  @Test func siblingModulesAreFoundAndNothingOutside() throws {
    let directory = try makeTemporaryDirectory("feature")
    defer { try? FileManager.default.removeItem(at: directory) }
    try "return { step = 5 }".write(
      to: directory.appendingPathComponent("settings.lua"), atomically: true, encoding: .utf8)
    let source = """
      local settings = require("settings")
      local effect = require("composable.effect")
      return {
        initial_state = function() return { step = settings.step, has_effects = effect ~= nil } end,
        reduce = function() end,
      }
      """
    try source.write(to: directory.appendingPathComponent("main.lua"), atomically: true, encoding: .utf8)
    let feature = try LuaFeature(contentsOf: directory.appendingPathComponent("main.lua"))
    #expect(try feature.state() == ["step": 5, "has_effects": true])
    let outside = "require('../settings') return { reduce = function() end }"
    #expect(featureError { _ = try LuaFeature(source: outside, file: "x.lua", directory: directory) } != nil)
  }

  @Test func osTimeAndMathRandomAreNotReachable() throws {
    let feature = try LuaFeature(
      source: "return { initial_state = function() return { os = os == nil, random = math.random == nil } end, reduce = function() end }",
      file: "deterministic.lua")
    #expect(try feature.state() == ["os": true, "random": true])
  }
}
