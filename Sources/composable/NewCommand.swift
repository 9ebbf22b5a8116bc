import ComposableHost
import ComposableLua
import Foundation

/// `composable new NAME`: a folder with a feature, its test, and what an editor and luacheck
/// need to check them, which `composable test NAME` passes at once.
struct NewCommand: Command {
  static let shape = CommandShape(
    name: "new", abstract: "Write a new feature, its test, and editor settings into a folder NAME.",
    arguments: [
      .init(name: "name", help: "The feature's name: letters, digits and _, as a Lua module name.")
    ])

  let name: String

  init(_ arguments: ParsedArguments) throws(UsageError) {
    name = arguments.string("name") ?? ""
    // ASCII only: `require` takes no other letters (`café` was written, and its test failed).
    guard name.isLuaWord, name.unicodeScalars.allSatisfy(\.isASCII) else {
      throw UsageError(
        "\(name): a feature's name is a Lua module name: letters a-z and A-Z, digits and _, "
          + "not starting with a digit")
    }
    // Its test's file, NAME_test.lua, must fit a file's name (255 bytes): a longer name left a
    // folder with half the files.
    guard name.utf8.count + "_test.lua".utf8.count <= Self.longestFileName else {
      throw UsageError(
        "\(name.prefix(20))...: a feature's name is at most "
          + "\(Self.longestFileName - "_test.lua".utf8.count) characters (\(name.utf8.count) given), "
          + "so that its test's file, NAME_test.lua, is a file name the system takes")
    }
  }

  /// The longest name of a file (NAME_MAX on Linux).
  static let longestFileName = 255

  func run() throws {
    // Anything at the name, a dangling link too (`fileExists` follows links: a link to nowhere
    // was taken for nothing there, and the write then failed in Foundation's words).
    var status = stat()
    if lstat(name, &status) == 0 {
      throw UsageError(
        "\(name) already exists; nothing was written. To fix, choose another name or move it.")
    }
    // Every file or none: written into a folder beside it, renamed to NAME once whole.
    let folder = URL(fileURLWithPath: ".composable-new.\(getpid())")
    do {
      try? FileManager.default.removeItem(at: folder)
      let types = folder.appendingPathComponent(".composable/types")
      try FileManager.default.createDirectory(at: types, withIntermediateDirectories: true)
      let files: [(String, String)] =
        [
          ("\(name).lua", FeatureTemplate.feature(name)),
          ("\(name)_test.lua", FeatureTemplate.test(name)),
          (".luarc.json", FeatureTemplate.luarc),
          (".luacheckrc", FeatureTemplate.luacheckrc),
        ]
        + ComposableLuaLibrary.annotations.sorted { $0.key < $1.key }.map {
          (".composable/types/" + $0.key, $0.value)
        }
      for (path, contents) in files {
        try contents.write(
          to: folder.appendingPathComponent(path), atomically: false, encoding: .utf8)
      }
      guard rename(folder.path, name) == 0 else {
        throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno))
      }
    } catch {
      try? FileManager.default.removeItem(at: folder)
      // The system's reason, not Foundation's wrapping of it.
      let error = error as NSError
      let posix =
        error.domain == NSPOSIXErrorDomain
        ? error : (error.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
      let reason =
        posix.map { String(cString: strerror(Int32($0.code))) } ?? error.localizedDescription
      printError("\(name): the folder could not be written (\(reason)); nothing was written.")
      throw ExitStatus.failure
    }
    print(
      """
      Wrote \(name)/\(name).lua, its test \(name)/\(name)_test.lua, and editor settings \
      (.luarc.json for LuaLS, .luacheckrc).
        composable test \(name)      runs its tests
        composable run \(name)/\(name).lua    runs it; type actions (increment)
      """)
  }
}

/// What `composable new` writes.
enum FeatureTemplate {
  static func feature(_ name: String) -> String {
    """
    -- \(name): a feature. `composable run \(name)/\(name).lua` runs it; type `increment`.
    local effect = require("composable.effect")

    ---@type Feature
    local Feature = {}

    -- The actions the feature handles, for tools (the REPL completes them).
    Feature.actions = { "increment", "decrement", "reset_later", "reset" }

    function Feature.initial_state()
      return { count = 0 }
    end

    ---@param state { count: integer }
    ---@param action Action
    ---@param env Env
    ---@return Effect?
    function Feature.reduce(state, action, env)
      if action.type == "increment" then
        state.count = state.count + 1
      elseif action.type == "decrement" then
        state.count = state.count - 1
      elseif action.type == "reset_later" then
        -- `--env reset_after=3` (or `env = { reset_after = 3 }` in a test) sets the delay.
        return effect.after(env.reset_after or 1, "reset")
      elseif action.type == "reset" then
        state.count = 0
      end
    end

    return Feature

    """
  }

  static func test(_ name: String) -> String {
    """
    -- \(name)'s tests: `composable test \(name)` runs them.
    local TestStore = require("composable.test").TestStore
    local Feature = require("\(name)")

    describe("\(name)", function()
      it("counts", function()
        local store = TestStore.new{ feature = Feature }
        store:send("increment", function(s) s.count = 1 end)
        store:send("decrement", function(s) s.count = 0 end)
      end)

      it("resets a second later", function()
        local store = TestStore.new{ feature = Feature, state = { count = 5 } }
        store:send("reset_later")
        store:advance(1)
        store:receive("reset", function(s) s.count = 0 end)
      end)
    end)

    """
  }

  /// LuaLS: Lua 5.4, the library's annotations, and the test globals.
  static let luarc = """
    {
      "$schema": "https://raw.githubusercontent.com/LuaLS/vscode-lua/master/setting/schema.json",
      "runtime.version": "Lua 5.4",
      "workspace.library": [".composable/types"],
      "workspace.checkThirdParty": false
    }

    """

  static let luacheckrc = """
    -- luacheck's settings: Lua 5.4; tests have busted's globals and expect_failure; code in
    -- effect.run has sleep, http and file; the annotations are skipped.
    std = "lua54"
    max_line_length = 100
    read_globals = { "sleep", "http", "file" }
    files["**/*_test.lua"] = { std = "+busted", read_globals = { "expect_failure" } }
    exclude_files = { ".composable/**" }

    """
}
