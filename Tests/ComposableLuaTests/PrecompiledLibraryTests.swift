import Foundation
import Testing

@testable import ComposableLua
@testable import LuaKit

/// The library loads from bytecode the build compiled (LuaBytecodePlugin). That bytecode is the
/// library's files as they are now, compiled by the Lua the package links, with the chunk names
/// errors show.
@Suite struct PrecompiledLibraryTests {
  static let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources/ComposableLua/Lua")

  @Test(arguments: [
    ("composable", LuaBytecode.composable),
    ("composable.effect", LuaBytecode.composable_effect),
    ("composable.test", LuaBytecode.composable_test),
  ])
  func theBytecodeIsTheFileCompiledNow(name: String, bytecode: [UInt8]) throws {
    let text = try String(
      contentsOf: Self.library.appendingPathComponent(name + ".lua"), encoding: .utf8)
    #expect(try LuaPrecompiledChunk(compiling: text, chunkName: "=" + name).bytecode == bytecode)
  }

  @Test func theEmbeddedTextIsTheFileToo() throws {
    for (name, text) in ComposableLuaLibrary.modules {
      let file = try String(
        contentsOf: Self.library.appendingPathComponent(name + ".lua"), encoding: .utf8)
      #expect(text == file, "\(name)")
    }
  }

  /// An error raised inside the library names the compiled chunk and the line in its file.
  @Test func anErrorInTheLibraryNamesItsChunkAndLine() throws {
    let file = try String(
      contentsOf: Self.library.appendingPathComponent("composable.lua"), encoding: .utf8)
    let lines = file.split(separator: "\n", omittingEmptySubsequences: false)
    let line =
      try #require(lines.firstIndex { $0.contains("local key = element.id") }) + 1
    let vm = try LuaVM()
    let sandbox = try ComposableLuaLibrary.featureSandbox(in: vm, directory: nil)
    #expect {
      try vm.evaluate(
        "require('composable').for_each{ state = 'items', action = 'item', "
          + "reducer = function() end }({ items = { 5 } }, { type = 'item', id = 1 })",
        chunkName: "f.lua", in: sandbox)
    } throws: { error in
      (error as? LuaError)?.message
        == "composable:\(line): attempt to index a number value (local 'element')"
    }
  }
}
