import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// The file a feature's state is saved in is the host's to write: a feature's own
/// `effect.file.write`, `append` or `remove` of it (by any spelling of its path, as an effect
/// or inside `effect.run`) is refused, where it replaced the state with what the next start
/// moved aside as no state (an attacker's finding: the state lost, exit 0). And a reload is held
/// to the rules a start is: a `persist.path` among the host's own names is refused, the old
/// code running on.
@Suite struct StateFileIsTheHostsTests {
  static func source(persist path: String) -> String {
    """
    local effect = require("composable.effect")
    local composable = require("composable")
    return {
      persist = composable.persist{ path = "\(path)", select = "count", debounce = 0 },
      initial_state = function() return { count = 0, results = {} } end,
      reduce = function(state, action)
        if action.type == "effect" then
          state.count = state.count + 1
          local request = { path = action.path, response = "done" }
          if action.op ~= "remove" then request.contents = "return 'not a state'" end
          return effect.file[action.op](request)
        elseif action.type == "run" then
          state.count = state.count + 1
          return effect.run(function(send)
            local result = file[action.op](action.path, "return 'not a state'")
            send({ type = "done", ok = result.ok, error = result.error })
          end)
        elseif action.type == "done" then
          state.results[#state.results + 1] = action.ok and "ok" or action.error
        end
      end,
    }
    """
  }

  /// The host of `PathsInFileEffectsTests`, over this suite's feature, persisting to `path`.
  static func host(root: URL, persist path: String) throws -> PathsInFileEffectsTests.Host {
    try PathsInFileEffectsTests.Host(root: root, source: source(persist: path))
  }

  static func refusal(_ path: String, _ operation: String) -> String {
    let change = ["append": "an append", "remove": "a removal"][operation] ?? "a \(operation)"
    return "\(path): the feature's state is saved there (persist.path), and only the host writes "
      + "it; \(change) would be lost at the next save, or lose the state. To fix, change the "
      + "state and let it save, or \(operation) another file"
  }

  /// Nor by a way a user's symlink in the data directory opens (an attacker's finding: a write
  /// of `alias.lua`, a link to the state's file, replaced the state; a removal of
  /// `here/notes/state.lua`, through a link to `.`, lost it): the file is known by where it is.
  @Test func aSymlinkToTheSavedFileIsNoOtherFile() async throws {
    let sandbox = try PathSandbox("state-file-links")
    defer { sandbox.remove() }
    let host = try Self.host(root: sandbox.root, persist: "notes/state.lua")
    #expect(try await host.attempt("effect", "write", "other.txt") == "ok")  // saves the state
    let manager = FileManager.default
    let root = sandbox.root.path
    try manager.createSymbolicLink(
      atPath: root + "/alias.lua", withDestinationPath: "notes/state.lua")
    try manager.createSymbolicLink(atPath: root + "/here", withDestinationPath: ".")
    try manager.createSymbolicLink(atPath: root + "/linkdir", withDestinationPath: "notes")
    try manager.createSymbolicLink(atPath: root + "/abs", withDestinationPath: root + "/notes")
    for kind in ["effect", "run"] {
      for (operation, path) in [
        ("write", "alias.lua"), ("append", "alias.lua"), ("remove", "here/notes/state.lua"),
        ("write", "linkdir/state.lua"), ("remove", "abs/state.lua"),
        ("append", "here/linkdir/./state.lua"),
      ] {
        let answer = try await host.attempt(kind, operation, path)
        let named = path.replacingOccurrences(of: "/./", with: "/")
        #expect(
          answer?.hasPrefix("\(named): the feature's state is saved there") == true,
          "\(kind) \(operation) \(path): \(String(describing: answer))")
      }
    }
    let text = try String(
      contentsOf: sandbox.root.appendingPathComponent("notes/state.lua"), encoding: .utf8)
    #expect(text.contains("return 13\n"), "\(text)")
    // The link itself is the feature's to remove: the file stays.
    #expect(try await host.attempt("effect", "remove", "alias.lua") == "ok")
    #expect(manager.fileExists(atPath: root + "/notes/state.lua"))
  }

  @Test func everySpellingOfTheSavedPathIsRefusedToEveryChange() async throws {
    let sandbox = try PathSandbox("state-file-hosts")
    defer { sandbox.remove() }
    let host = try Self.host(root: sandbox.root, persist: "notes/state.lua")
    let spellings = ["notes/state.lua", "./notes//state.lua", "notes/./state.lua/", "notes/state.lua/."]
    var count = 0
    for kind in ["effect", "run"] {
      for operation in ["write", "append", "remove"] {
        for path in spellings {
          let answer = try await host.attempt(kind, operation, path)
          count += 1
          #expect(answer == Self.refusal("notes/state.lua", operation), "\(kind) \(operation) \(path)")
          // The state on disk is the state, after every refused change.
          let saved = try await host.files.read(try DataPath(validating: Array("notes/state.lua".utf8)))
          let text = String(decoding: saved, as: UTF8.self)
          #expect(text.contains("return \(count)\n"), "\(kind) \(operation) \(path): \(text)")
        }
      }
    }
    // A file beside it, and one of the same name elsewhere, are the feature's.
    for path in ["notes/state.lua.bak", "state.lua", "other/notes/state.lua"] {
      #expect(try await host.attempt("effect", "write", path) == "ok", "\(path)")
      #expect(try await host.attempt("run", "remove", path) == "ok", "\(path)")
    }
    #expect(host.errors.all.isEmpty, "\(host.errors.all)")
    // What was saved restores.
    let again = try LuaFeature(
      source: Self.source(persist: "notes/state.lua"), file: "feature.lua")
    _ = try await again.restorePersisted(files: host.files) { _ in }
    #expect(try again.state().count == .integer(count + 6))
  }

  /// A reload moves what is refused with the saved path: the old path is the feature's again,
  /// the new one is not.
  @Test func aReloadMovesTheRefusalWithThePath() async throws {
    let sandbox = try PathSandbox("state-file-reload")
    defer { sandbox.remove() }
    let host = try Self.host(root: sandbox.root, persist: "a.lua")
    #expect(try await host.attempt("effect", "write", "b.lua") == "ok")
    try host.feature.swap(toSource: Self.source(persist: "b.lua"))
    #expect(try await host.attempt("effect", "write", "a.lua") == "ok")
    #expect(try await host.attempt("effect", "remove", "b.lua") == Self.refusal("b.lua", "remove"))
  }

  /// `persist.path` among the host's names (`.composable-...` at the top) is a load error, at
  /// the start and at a reload, where the reload kept the old code and its saves went over the
  /// data directory's marker, or failed one by one.
  @Test func aHostsNameIsRefusedAtStartAndAtReload() throws {
    let message =
      "persist.path: .composable-feature: names beginning .composable- at the top of the data "
      + "directory are kept for composable's own files. To fix, give the file another name"
    for path in [".composable-feature", "./.composable-feature", ".composable-x"] {
      let error = featureError {
        _ = try LuaFeature(source: Self.source(persist: path), file: "feature.lua")
      }
      let name = try DataPath(validating: Array(path.utf8)).description
      #expect(
        error == .load(
          file: "feature.lua",
          message: message.replacingOccurrences(of: ".composable-feature", with: name)),
        "\(path)")
    }
    let feature = try LuaFeature(source: Self.source(persist: "s.lua"), file: "feature.lua")
    let reload = featureError {
      try feature.swap(toSource: Self.source(persist: "./.composable-feature"))
    }
    #expect(reload == .load(file: "feature.lua", message: message))
    #expect(feature.persistence?.path.description == "s.lua")
    // Below the top, the name is the feature's.
    try feature.swap(toSource: Self.source(persist: "sub/.composable-feature"))
    #expect(feature.persistence?.path.description == "sub/.composable-feature")
  }
}

extension PathsInFileEffectsTests.Host {
  /// What `kind` ("effect" or "run") of `operation` on `path` answered; nil for no answer.
  func attempt(_ kind: String, _ operation: String, _ path: String) async throws -> String? {
    try await attempt(kind, operation, Array(path.utf8)).result
  }
}
