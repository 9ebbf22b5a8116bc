import Clocks
import Composable
import ComposableLua
import LuaKit
import TestSupport
import Testing

/// The todos example, driven from Swift with the TestStore.
@Suite struct TodosExampleTests {
  let clock = TestClock()

  func makeStore() throws -> TestStore<LuaValue, LuaValue> {
    try TestStore(feature: example("todos/todos.lua")) { [clock] in
      $0.clock = clock
      $0.uuid = .incrementing
      $0.files = .inMemory()
    }
  }

  /// The list is saved a second after the last change: let that save finish.
  func finishSaving(_ store: TestStore<LuaValue, LuaValue>) async {
    await clock.advance(by: .seconds(1))
    await store.finish()
  }

  static func id(_ n: Int) -> LuaValue {
    .string(LuaString(String(format: "00000000-0000-0000-0000-%012X", n)))
  }

  @Test func addEditDelete() async throws {
    let store = try makeStore()
    await store.send(["type": "add", "title": "milk"]) {
      $0.todos = [["id": Self.id(0), "title": "milk", "done": false]]
    }
    await store.send(["type": "add", "title": "eggs"]) {
      $0.todos = [
        ["id": Self.id(1), "title": "eggs", "done": false],
        ["id": Self.id(0), "title": "milk", "done": false],
      ]
    }
    await store.send(["type": "todo", "id": Self.id(0), "action": ["type": "edited", "title": "oat milk"]]) {
      $0.todos[2].title = "oat milk"
    }
    await store.send(["type": "delete", "id": Self.id(1)]) {
      $0.todos = [["id": Self.id(0), "title": "oat milk", "done": false]]
    }
    await finishSaving(store)
  }

  @Test func completedTodosSortToTheBottomASecondAfterTheLastToggle() async throws {
    let store = try makeStore()
    for title in ["c", "b", "a"] {
      await store.send(["type": "add", "title": .string(LuaString(title))]) {
        $0.todos = .table(LuaTable(array:
          [["id": Self.id(store.state.todos.tableValue!.count), "title": .string(LuaString(title)), "done": false]]
          + store.state.todos.tableValue!.sequence))
      }
    }
    // a, b, c: toggle a, then b half a second later; the sort waits for a quiet second.
    await store.send(["type": "todo", "id": Self.id(2), "action": "toggled"]) { $0.todos[1].done = true }
    await clock.advance(by: .milliseconds(500))
    await store.send(["type": "todo", "id": Self.id(1), "action": "toggled"]) { $0.todos[2].done = true }
    await clock.advance(by: .milliseconds(999))
    #expect(store.state.todos[1].title == "a")
    await clock.advance(by: .milliseconds(1))
    await store.receive(["type": "sort"]) {
      $0.todos = [
        ["id": Self.id(0), "title": "c", "done": false],
        ["id": Self.id(2), "title": "a", "done": true],
        ["id": Self.id(1), "title": "b", "done": true],
      ]
    }
    await finishSaving(store)
  }

  @Test func aBadEditIsRolledBack() async throws {
    let store = try makeStore()
    await store.send(["type": "add", "title": "milk"]) {
      $0.todos = [["id": Self.id(0), "title": "milk", "done": false]]
    }
    await withKnownIssue {
      await store.send(["type": "todo", "id": Self.id(0), "action": ["type": "edited", "title": 5]])
    } matching: { issue in
      message(of: issue).contains("todo.lua:8: edited needs a title string")
    }
    await finishSaving(store)
  }
}
