import Testing

@testable import LuaKit

@Suite struct ActionShapeTests {
  static let shapes: [(CounterAction, LuaValue)] = [
    (.increment, ["type": "increment"]),
    (.add(amount: 3), ["type": "add", "amount": 3]),
    (.setText("hi"), ["type": "setText", "value": "hi"]),
    (.move(1, 2), ["type": "move", "_1": 1, "_2": 2]),
    (.child(.tapped), ["type": "child", "value": ["type": "tapped"]]),
    (.rename(id: 7, "new"), ["type": "rename", "id": 7, "_2": "new"]),
  ]

  @Test(arguments: shapes)
  func enumsBecomeTheActionShape(action: CounterAction, shape: LuaValue) throws {
    let (snapshot, decoded) = try throughLua(action)
    #expect(snapshot == shape)
    #expect(decoded == action)
  }

  @Test func actionsWrittenInLuaDecode() throws {
    #expect(try decodeLua(CounterAction.self, "return { type = 'add', amount = 5 }") == .add(amount: 5))
    #expect(try decodeLua(CounterAction.self, "return { type = 'setText', value = 'x' }") == .setText("x"))
    #expect(try decodeLua(CounterAction.self, "return { type = 'move', _1 = 3, _2 = 4 }") == .move(3, 4))
    #expect(try decodeLua(CounterAction.self, "return { type = 'child', value = 'tapped' }") == .child(.tapped))
  }

  @Test func aBareStringIsShorthandForAnActionWithoutPayload() throws {
    #expect(try decodeLua(CounterAction.self, "return 'increment'") == .increment)
    #expect(conversionError { _ = try decodeLua(CounterAction.self, "return 'add'", rootName: "action") }
      == "action.amount: expected integer, got nil")
  }

  @Test func unknownCasesAndMissingTypesAreClearErrors() throws {
    #expect(conversionError { _ = try decodeLua(CounterAction.self, "return { type = 'explode' }", rootName: "action") }
      == #"action.type: "explode" is not a case of CounterAction"#)
    #expect(conversionError { _ = try decodeLua(CounterAction.self, "return { amount = 1 }", rootName: "action") }
      == "action.type: expected a string naming a case of CounterAction, got nil")
    #expect(conversionError { _ = try decodeLua(CounterAction.self, "return 42", rootName: "action") }
      == "action: expected a case of CounterAction (a table with a string type, or a string), got integer")
    #expect(conversionError { _ = try decodeLua(CounterAction.self, "return { type = 'add', amount = 'x' }", rootName: "action") }
      == "action.amount: expected integer, got string")
  }

  @Test func rawValueEnumsStayTheirRawValue() throws {
    enum Filter: String, Codable { case all, done }
    let (snapshot, decoded) = try throughLua(Filter.done)
    #expect(snapshot == "done")
    #expect(decoded == .done)
  }

  @Test func actionsNestInsideState() throws {
    struct Log: Codable, Equatable { var actions: [CounterAction] }
    let log = Log(actions: [.increment, .add(amount: 2), .child(.tapped)])
    #expect(try throughLua(log).decoded == log)
  }
}
