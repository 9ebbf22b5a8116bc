import Testing

@testable import LuaKit

@Suite struct CollectionMarshallingTests {
  @Test func optionalNoneIsAbsent() throws {
    let vm = try LuaVM()
    let count = try vm.load(
      "local n = 0 for _ in pairs(...) do n = n + 1 end return n, (...).filter",
      chunkName: "count.lua")
    let state = TodosState(todos: [], filter: nil)
    #expect(try vm.call(count, arguments: [.encoded(state)]) == [1, nil])
    #expect(try throughLua(state).decoded == state)
    #expect(try decodeLua(TodosState.self, "return { todos = {} }") == state)
    #expect(try decodeLua(TodosState.self, "return { todos = {}, filter = 'done' }").filter == "done")
  }

  @Test func arraysAreOneBased() throws {
    let vm = try LuaVM()
    let read = try vm.load("local a = ... return a[1], a[3], #a, a[0]", chunkName: "read.lua")
    #expect(try vm.call(read, arguments: [.encoded(["a", "b", "c"])]) == ["a", "c", 3, nil])
  }

  @Test func aSparseTableIsNotAnArray() throws {
    #expect(conversionError { _ = try decodeLua([Int].self, "return { 1, nil, 3 }") }
      == "state: expected an array without holes, but [2] is nil")
    #expect(conversionError { _ = try decodeLua([Int].self, "return { [1] = 1, [5] = 5 }") }
      == "state: expected an array (keys 1 to 1), found the key 5")
    #expect(conversionError { _ = try decodeLua([Int].self, "return { 1, 2, x = 3 }") }
      == #"state: expected an array (keys 1 to 2), found the key "x""#)
  }

  /// Arrays of strings, integers and floats take loops of their own: the same rules hold.
  @Test func arraysOfScalarsKeepTheirRules() throws {
    let (integers, decodedIntegers) = try throughLua([3, -1, Int.max])
    #expect(decodedIntegers == [3, -1, Int.max])
    #expect(integers == [3, -1, .integer(Int.max)])
    #expect(integers.tableValue?.kind == .array)
    let (doubles, decodedDoubles) = try throughLua([0.5, -2.0, 1e300])
    #expect(decodedDoubles == [0.5, -2.0, 1e300])
    #expect(doubles == [0.5, -2.0, 1e300])
    let (strings, decodedStrings) = try throughLua(["a", "", "ü"])
    #expect(decodedStrings == ["a", "", "ü"])
    #expect(strings.tableValue?.kind == .array)
    #expect(try decodeLua([Int].self, "return { 1, 2.0 }") == [1, 2])
    #expect(conversionError { _ = try decodeLua([Int].self, "return { 1, 2.5 }") }
      == "state[2]: expected integer, got float 2.5")
    #expect(conversionError { _ = try decodeLua([Double].self, "return { 1, 'x' }") }
      == "state[2]: expected number, got string")
    #expect(conversionError { _ = try decodeLua([String].self, "return { 'a', 'b', {} }") }
      == "state[3]: expected string, got table")
  }

  @Test func nilCannotBeAnArrayElement() throws {
    let vm = try LuaVM()
    let values: [Int?] = [1, nil, 3]
    #expect(conversionError { _ = try LuaEncoder().encode(values, in: vm, rootName: "state") }
      == "state[2]: nil cannot be an element of an array: Lua arrays have no holes")
  }

  @Test func stringKeyedDictionaries() throws {
    let scores = ["ada": 3, "grace": 5, "with space": 1]
    let (snapshot, decoded) = try throughLua(scores)
    #expect(decoded == scores)
    #expect(snapshot == ["ada": 3, "grace": 5, "with space": 1])
  }

  @Test func intKeyedDictionariesKeepIntegerKeys() throws {
    let names = [1: "one", 10: "ten", -4: "minus four"]
    let (snapshot, decoded) = try throughLua(names)
    #expect(decoded == names)
    #expect(snapshot == [1: "one", 10: "ten", -4: "minus four"])
    #expect(conversionError { _ = try decodeLua([Int: String].self, "return { x = 'y' }") }
      == #"state: expected integer keys, got the string key "x""#)
  }

  @Test func aStringKeyedDictionaryRefusesKeysItWouldDrop() throws {
    #expect(try decodeLua([String: Int].self, "return { a = 1, [2] = 2 }") == ["a": 1, "2": 2])
    let expected = "state: expected string keys (UTF-8 text, or integers), got the"
    #expect(
      conversionError { _ = try decodeLua([String: Int].self, "return { a = 1, [true] = 2 }") }
        == "\(expected) boolean key true")
    #expect(conversionError { _ = try decodeLua([String: Int].self, "return { [1.5] = 3 }") }
      == "\(expected) float key 1.5")
    #expect(conversionError { _ = try decodeLua([String: Int].self, "return { a = 'x' }") }
      == "state.a: expected integer, got string")
  }

  @Test func emptyArraysAndEmptyMapsSurviveARoundTrip() throws {
    let (arraySnapshot, array) = try throughLua([Int]())
    #expect(array == [])
    #expect(arraySnapshot.tableValue?.kind == .array)
    let (mapSnapshot, map) = try throughLua([String: Int]())
    #expect(map == [:])
    #expect(mapSnapshot.tableValue?.kind == .map)
    // A LuaValue keeps the kind through Lua too.
    let vm = try LuaVM()
    #expect(try vm.value(of: vm.reference(to: [])).tableValue?.kind == .array)
    #expect(try vm.value(of: vm.reference(to: [:])).tableValue?.kind == .map)
  }

  @Test func luaCodeCanFillAnEmptyArrayAndItStaysAnArray() throws {
    let vm = try LuaVM()
    let append = try vm.load(
      "local t = ... table.insert(t.tags, 'new') return t", chunkName: "append.lua")
    let todo = Todo(id: 1, title: "a", done: false, tags: [])
    let result = try vm.call(append, arguments: [.encoded(todo)], returning: Todo.self)
    #expect(result.tags == ["new"])
  }

  @Test func nestedStructsAndTheirPaths() throws {
    let state = TodosState(
      todos: (1...3).map { Todo(id: $0, title: "todo \($0)", done: $0 == 2, tags: ["t\($0)"]) },
      filter: "all")
    #expect(try throughLua(state).decoded == state)
    let broken = """
      return { todos = {
        { id = 1, title = "a", done = false, tags = {} },
        { id = 2, title = "b", done = false, tags = {} },
        { id = 3, title = true, done = false, tags = {} },
      } }
      """
    #expect(conversionError { _ = try decodeLua(TodosState.self, broken) }
      == "state.todos[3].title: expected string, got boolean")
    #expect(conversionError {
      _ = try decodeLua(TodosState.self, "return { todos = { { id = 1, title = 'a', done = 1, tags = {} } } }")
    } == "state.todos[1].done: expected boolean, got integer")
    #expect(conversionError {
      _ = try decodeLua(TodosState.self, "return { todos = { { id = 1, title = 'a', done = false } } }")
    } == "state.todos[1].tags: expected array, got nil")
    #expect(conversionError {
      _ = try decodeLua(TodosState.self, "return { todos = { { id = 1, title = 'a', done = false, tags = { 'x', 2 } } } }")
    } == "state.todos[1].tags[2]: expected string, got integer")
  }

  @Test func oddKeysArePrintedAsLuaWould() throws {
    struct Odd: Codable { var value: [String: Int] }
    #expect(conversionError { _ = try decodeLua(Odd.self, "return { value = { ['two words'] = 'x' } }") }
      == #"state.value["two words"]: expected integer, got string"#)
  }

  @Test func aTableThatContainsItselfIsACycle() throws {
    let vm = try LuaVM()
    #expect(conversionError { _ = try vm.evaluate("local t = { a = {} } t.a.back = t return t") }
      == "result #1.a.back: cycle: the table contains itself")
    final class Node: Codable { var next: Node? }
    #expect(conversionError { _ = try decodeLua(Node.self, "local n = {} n.next = n return n") }
      == "state.next: cycle: the table contains itself")
    // The same table twice, but not inside itself, is fine.
    #expect(try vm.evaluate("local t = { 1 } return { a = t, b = t }")[0] == ["a": [1], "b": [1]])
  }

  @Test func anObjectGraphWithACycleIsAnError() throws {
    final class Node: Codable { var name = "n"; var next: Node? }
    let first = Node()
    let second = Node()
    first.next = second
    second.next = first
    defer { second.next = nil }
    let vm = try LuaVM()
    #expect(conversionError { _ = try LuaEncoder().encode(first, in: vm, rootName: "state") }
      == "state.next.next: cycle: the object contains itself")
  }

  @Test func luaValueEncodesAsItself() throws {
    struct Wrapper: Codable, Equatable { var payload: LuaValue }
    let wrapper = Wrapper(payload: ["x": [1, 2.5, "three"], "ok": true])
    #expect(try throughLua(wrapper).decoded == wrapper)
  }
}
