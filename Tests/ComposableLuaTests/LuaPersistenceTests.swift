import Clocks
import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

@Suite struct LuaPersistenceTests {
  let clock = TestClock()

  func todos(_ files: FileClient) throws -> (LuaFeature, TestStore<LuaValue, LuaValue>) {
    let feature = try LuaFeature(contentsOf: URL(fileURLWithPath: example("todos/todos.lua")))
    let store = TestStore(
      initialState: try feature.state(),
      reducer: { LuaFeatureReducer<LuaValue>(feature: feature, dependencies: $0) },
      dependencies: { [clock] in
        $0.clock = clock
        $0.uuid = .incrementing
        $0.files = files
      })
    return (feature, store)
  }

  static func saved(_ files: FileClient) async throws -> LuaValue {
    let text = String(decoding: try await files.read("todos.saved.lua"), as: UTF8.self)
    return try LuaDataFile.read(Array(text.utf8), chunkName: "todos.saved.lua")
  }

  @Test func theTodosExampleSavesItsListAfterChangesDebounced() async throws {
    let files = FileClient.inMemory()
    let (feature, store) = try todos(files)
    #expect(feature.persistence?.path == "todos.saved.lua")
    await store.send(["type": "add", "title": "milk"]) {
      $0.todos = [["id": TodosExampleTests.id(0), "title": "milk", "done": false]]
    }
    await store.send(["type": "add", "title": "eggs"]) {
      $0.todos = [
        ["id": TodosExampleTests.id(1), "title": "eggs", "done": false],
        ["id": TodosExampleTests.id(0), "title": "milk", "done": false],
      ]
    }
    await clock.advance(by: .milliseconds(999))
    #expect(try await files.list(".") == [])  // one write for the burst, after a quiet second
    await clock.advance(by: .milliseconds(1))
    await store.finish()
    #expect(try await Self.saved(files) == [
      ["done": false, "id": TodosExampleTests.id(1), "title": "eggs"],
      ["done": false, "id": TodosExampleTests.id(0), "title": "milk"],
    ])
  }

  /// Changes closer together than the delay still save: a second after the first change not
  /// yet saved, not a second after the last (which a steady stream would put off for ever).
  @Test func aSteadyStreamOfChangesIsSavedEverySecond() async throws {
    let files = FileClient.inMemory()
    let (_, store) = try todos(files)
    store.exhaustivity = .off
    let first = await store.send(["type": "add", "title": "one"])  // its effect is the save
    await clock.advance(by: .milliseconds(600))
    await store.send(["type": "add", "title": "two"])
    await clock.advance(by: .milliseconds(600))  // 1.2 s after the first change
    await first.finish()  // the save woke at 1 s; its write is done once the effect is
    #expect(try await Self.saved(files).tableValue?.count == 2)
    let third = await store.send(["type": "add", "title": "three"])
    await clock.advance(by: .milliseconds(600))
    #expect(try await Self.saved(files).tableValue?.count == 2)  // the next save is at 2.2 s
    await clock.advance(by: .milliseconds(400))
    await third.finish()
    #expect(try await Self.saved(files).tableValue?.count == 3)
    await store.finish()
  }

  @Test func anActionThatChangesNothingSavesNothing() async throws {
    let files = FileClient.inMemory()
    let (_, store) = try todos(files)
    await store.send(["type": "delete", "id": "nothing"])
    await clock.advance(by: .seconds(2))
    await store.finish()
    #expect(try await files.list(".") == [])
  }

  @Test func aNewStartRestoresTheSavedList() async throws {
    let files = FileClient.inMemory([
      "todos.saved.lua": #"return { { done = true, id = "A", title = "saved" } }"#,
    ])
    let feature = try LuaFeature(contentsOf: URL(fileURLWithPath: example("todos/todos.lua")))
    let loaded = try await feature.restorePersisted(files: files)
    guard case .saved = loaded else { Issue.record("expected the saved list, got \(loaded)"); return }
    #expect(try feature.state() == [
      "todos": [["done": true, "id": "A", "title": "saved"]], "filter": "all",
    ])
  }

  @Test func aCorruptFileIsMovedAsideAndTheStateKept() async throws {
    let files = FileClient.inMemory(["todos.saved.lua": "return { broken"])
    let feature = try LuaFeature(contentsOf: URL(fileURLWithPath: example("todos/todos.lua")))
    let reports = PersistReports()
    let loaded = try await feature.restorePersisted(files: files) { reports.add($0) }
    guard case let .corrupt(_, movedTo) = loaded else { Issue.record("expected corrupt, got \(loaded)"); return }
    #expect(movedTo.hasPrefix("todos.saved.lua.corrupt-"))
    #expect(try await files.list(".") == [movedTo])
    #expect(reports.count == 1)
    #expect(try feature.state() == ["todos": [:], "filter": "all"])
  }

  @Test func aBadPersistDeclarationIsALoadError() {
    let error = featureError {
      _ = try LuaFeature(source: """
        local composable = require("composable")
        return { reduce = function() end, persist = composable.persist{ path = 42 } }
        """, file: "bad.lua")
    }
    guard case let .load(_, message) = error else { Issue.record("expected a load error"); return }
    #expect(message.hasPrefix("bad.lua:2: persist: path must be a string, got number"))
  }
}

final class PersistReports: @unchecked Sendable {
  private let lock = NSLock()
  private var messages: [String] = []
  func add(_ message: String) { lock.withLock { messages.append(message) } }
  var count: Int { lock.withLock { messages.count } }
}
