import Composable
import ComposableLua
import LuaKit
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
