import ComposableLua
import Foundation
import LuaKit
import Testing

/// The LuaLS annotations (`Lua/types/*.meta.lua`) declare exactly what the library's modules
/// hold: a function added to the library without its annotation, or an annotation left behind
/// by a function that went, fails here.
@Suite struct AnnotationsInStepTests {
  /// The names `module` holds (nested tables as `file.read`), as feature code sees them.
  func names(of module: String) throws -> Set<String> {
    let vm = try LuaVM()
    let sandbox = try ComposableLuaLibrary.featureSandbox(in: vm, directory: nil)
    let listed = try vm.evaluate(
      """
      local names = {}
      for key, value in pairs(require("\(module)")) do
        -- (An effect value, such as composable.dismiss, is one name.)
        if type(value) == "table" and key ~= "none" and value.kind == nil then
          for inner in pairs(value) do names[#names + 1] = key .. "." .. inner end
        else
          names[#names + 1] = key
        end
      end
      return table.concat(names, " ")
      """, chunkName: "names", in: sandbox)
    return Set((listed.first?.stringValue ?? "").split(separator: " ").map(String.init))
  }

  /// The names an annotation file declares on `prefix`: `function prefix.name` and
  /// `prefix.name =` lines, nested ones as `file.read`.
  func declared(in file: String, prefix: String) throws -> Set<String> {
    let text = try #require(ComposableLuaLibrary.annotations[file])
    var names: Set<String> = []
    for line in text.split(separator: "\n") {
      let body = line.hasPrefix("function ") ? line.dropFirst("function ".count) : line[...]
      guard body.hasPrefix(prefix + ".") else { continue }
      let rest = body.dropFirst(prefix.count + 1)
      let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
      guard !name.isEmpty else { continue }
      names.insert(String(name))
    }
    return names
  }

  @Test func composableIsDeclaredWhole() throws {
    // `effect` is composable.effect, declared as a ---@field.
    let actual = try names(of: "composable").filter { !$0.hasPrefix("effect.") }
    let declared = try declared(in: "composable.meta.lua", prefix: "composable")
    #expect(declared == actual, "declared \(declared.sorted()), actual \(actual.sorted())")
  }

  @Test func effectIsDeclaredWhole() throws {
    let declared = try declared(in: "composable.effect.meta.lua", prefix: "effect")
    // `effect.file = {}` declares the table the operations hang on.
    let actual = try names(of: "composable.effect")
    #expect(declared.subtracting(["file"]) == actual.subtracting([
      // What effect.run's coroutine reaches as the globals `file` and `http` (feature.meta.lua).
      "file_client.read", "file_client.write", "file_client.append", "file_client.list",
      "file_client.remove", "file_client.exists", "http_client.request", "http_client.get",
    ]))
    let globals = try self.declared(in: "feature.meta.lua", prefix: "file")
      .union(self.declared(in: "feature.meta.lua", prefix: "http"))
    #expect(globals == ["read", "write", "append", "list", "remove", "exists", "request", "get"])
  }

  @Test func jsonIsDeclaredWhole() throws {
    let actual = try names(of: "composable.json")
    #expect(try declared(in: "composable.json.meta.lua", prefix: "json") == actual)
  }
}
