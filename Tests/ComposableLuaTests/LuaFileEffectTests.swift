import Composable
import ComposableLua
import LuaKit
import TestSupport
import Testing

@Suite struct LuaFileEffectTests {
  static let source = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { notes = nil, log = {} } end,
      reduce = function(state, action)
        local t = action.type
        if t == "load" then
          return effect.file.read{ path = "notes.txt", response = "loaded" }
        elseif t == "loaded" then
          state.notes = action.ok and action.contents or ("error: " .. action.error)
        elseif t == "save" then
          return effect.file.write{ path = "notes.txt", contents = action.text, response = "saved" }
        elseif t == "saved" then
          table.insert(state.log, action.ok and "saved" or action.error)
        elseif t == "journal" then
          return effect.run(function(send)
            file.append("journal.txt", "a;")
            file.append("journal.txt", "b;")
            local read = file.read("journal.txt")
            local listing = file.list(".")
            send({ type = "journaled", contents = read.contents, files = #listing.entries })
          end)
        elseif t == "journaled" then
          table.insert(state.log, action.contents .. " in " .. action.files .. " files")
        elseif t == "bad_file" then
          return effect.file.read{ path = 42, response = "loaded" }
        elseif t == "misspelt" then
          return effect.file.write{ path = "notes.txt", content = "x" }
        elseif t == "misspelt_http" then
          return effect.http{ url = "http://x.test/", reponse = "got" }
        elseif t == "quiet_write" then
          return effect.file.write{ path = "blocker/inside.txt", contents = "x" }
        elseif t == "save_json" then
          return effect.file.write{ path = "todos.json", json = true, data = action.data }
        elseif t == "load_json" then
          return effect.file.read{ path = "todos.json", json = true, response = "json_loaded" }
        elseif t == "json_loaded" then
          state.notes = action.ok and action.data or action.error
        end
      end,
    }
    """

  @Test func readAndWriteAnswerWithActions() async throws {
    let store = try testStore(Self.source) { $0.files = .inMemory(["notes.txt": "buy milk"]) }
    await store.send("load")
    await store.receive(where: { $0.type == "loaded" }) { $0.notes = "buy milk" }
    await store.send(["type": "save", "text": "buy eggs"])
    await store.receive(where: { $0.type == "saved" }) { $0.log = ["saved"] }
    await store.send("load")
    await store.receive(where: { $0.type == "loaded" }) { $0.notes = "buy eggs" }
  }

  @Test func aMissingFileArrivesAsAFailureAction() async throws {
    let store = try testStore(Self.source) { $0.files = .inMemory() }
    await store.send("load")
    await store.receive(where: { $0.type == "loaded" && $0.ok == false }) {
      $0.notes = "error: notes.txt: no such file"
    }
  }

  @Test func fileCallsInsideRunReturnResults() async throws {
    let store = try testStore(Self.source) { $0.files = .inMemory(["other.txt": ""]) }
    await store.send("journal")
    await store.receive(["type": "journaled", "contents": "a;b;", "files": 2]) {
      $0.log = ["a;b; in 2 files"]
    }
  }

  @Test func aMalformedFileEffectNamesTheField() async throws {
    let store = try testStore(Self.source) { $0.files = .inMemory() }
    await withKnownIssue {
      await store.send("bad_file")
    } matching: { issue in
      message(of: issue).hasSuffix("effect.request.path: expected a string, got integer")
    }
  }

  /// Every field of a file request is checked, whether or not an action hears back: a
  /// misspelt `content` is an error naming the field, and the state is rolled back.
  @Test func aMisspeltFieldIsAnErrorEvenWithoutAResponse() async throws {
    let store = try testStore(Self.source) { $0.files = .inMemory() }
    await withKnownIssue {
      await store.send("misspelt")
    } matching: { issue in
      message(of: issue) == """
        the reducer returned a malformed effect for { type = "misspelt" }, and the state was \
        rolled back: effect.request.content: effect.file.write takes no such field (did you \
        mean contents?); its fields are path, contents, data, json, response
        """
    }
  }

  /// The same for `effect.http`: a misspelt `response` is named, not waited for in vain.
  @Test func aMisspeltHTTPFieldIsAnError() async throws {
    let store = try testStore(Self.source) { $0.files = .inMemory() }
    await withKnownIssue {
      await store.send("misspelt_http")
    } matching: { issue in
      message(of: issue) == """
        the reducer returned a malformed effect for { type = "misspelt_http" }, and the state \
        was rolled back: effect.request.reponse: effect.http takes no such field (did you mean \
        response?); its fields are url, method, query, headers, body, timeout, response
        """
    }
  }

  /// A write that nobody hears back from and that fails is reported, not lost.
  @Test func aFailingWriteWithoutAResponseIsReported() async throws {
    let root = try makeTemporaryDirectory("lua-files")
    defer { try? FileManager.default.removeItem(at: root) }
    try Data("a file, not a directory".utf8).write(to: root.appendingPathComponent("blocker"))
    let store = try testStore(Self.source) { $0.files = .live(root: root) }
    await withKnownIssue {
      await store.send("quiet_write")
      await store.finish()
    } matching: { issue in
      message(of: issue) == """
        an effect of { type = "quiet_write" } failed: effect.file.write of "blocker/inside.txt" \
        failed: "blocker/inside.txt: blocker is not a directory"
        """
    }
  }

  /// `json = true`: `data` is written as JSON, and read back decoded, integers and floats,
  /// empty lists and maps as they were.
  @Test func jsonFilesWriteDataAndReadItBack() async throws {
    let files = FileClient.inMemory()
    let store = try testStore(Self.source) { $0.files = files }
    let data: LuaValue = [
      "todos": [["title": "milk", "done": false, "n": 1, "ratio": 0.5]],
      "tags": .table(LuaTable(array: [])), "meta": [:],
    ]
    await store.send(["type": "save_json", "data": data])
    await store.finish()
    #expect(String(decoding: try await files.read("todos.json"), as: UTF8.self)
      == #"{"meta":{},"tags":[],"todos":[{"done":false,"n":1,"ratio":0.5,"title":"milk"}]}"#)
    await store.send("load_json")
    await store.receive(where: { $0.type == "json_loaded" }) { $0.notes = data }
    try await files.write("todos.json", Array(#"{"a": [1,"#.utf8))
    await store.send("load_json")
    await store.receive(where: { $0.type == "json_loaded" }) {
      $0.notes = "json.decode: line 1, column 10: expected a value, got the end of the text"
    }
  }

  @Test func filesTheTestDidNotProvideAreNamed() async throws {
    let store = try testStore(Self.source)
    await withKnownIssue {
      await store.send("load")
      await store.receive(where: { $0.type == "loaded" }) {
        $0.notes = "error: files are not provided in this test: read notes.txt"
      }
    } matching: { issue in
      message(of: issue).hasPrefix(#"A test used "files" without providing it: read notes.txt"#)
    }
  }
}

@Suite struct LuaLiveFileTests {
  @Test func aFeatureSavesAndLoadsRealFiles() async throws {
    let root = try makeTemporaryDirectory("lua-files")
    defer { try? FileManager.default.removeItem(at: root) }
    let store = try testStore(LuaFileEffectTests.source) { $0.files = .live(root: root) }
    await store.send(["type": "save", "text": "from lua"])
    await store.receive(where: { $0.type == "saved" }) { $0.log = ["saved"] }
    #expect(try String(contentsOf: root.appendingPathComponent("notes.txt"), encoding: .utf8) == "from lua")
    await store.send("load")
    await store.receive(where: { $0.type == "loaded" }) { $0.notes = "from lua" }
  }
}

import Foundation
