import Foundation
import Testing

@testable import LuaKit

/// Tables Swift pushes field by field (`LuaTableConvertible`), with names interned per VM.
@Suite struct LuaTableWriterTests {
  enum Names {
    static let id: LuaName = "id", text: LuaName = "text", ratio: LuaName = "ratio"
    static let done: LuaName = "done", kind: LuaName = "kind", note: LuaName = "note"
    static let labels: LuaName = "labels", child: LuaName = "child", big: LuaName = "big"
  }

  struct Note: LuaTableConvertible {
    var id: Int
    var text: String
    var ratio: Double
    var done: Bool
    var labels: LuaValue = .nil
    var child: [Note] = []

    func write(to table: inout LuaTableWriter) throws(LuaError) {
      try table.set(Names.id, id)
      try table.set(Names.text, text)
      try table.set(Names.ratio, ratio)
      try table.set(Names.done, done)
      try table.set(Names.kind, Names.note)
      try table.set(Names.labels, labels)
      if let first = child.first { try table.set(Names.child, first) }
    }
  }

  /// What Lua received: the argument as it is, and the Lua type of each number.
  static func received(
    _ value: some LuaTableConvertible, in vm: LuaVM
  ) throws(LuaError) -> [LuaValue] {
    let function = try vm.load(
      "local t = ... return t, math.type(t.id), math.type(t.ratio)", chunkName: "echo")
    return try vm.call(function, arguments: [.table(value)])
  }

  @Test func everyKindOfFieldArrivesExactly() throws {
    let vm = try LuaVM()
    let text = "milk\r\nand \u{0}nul, ünïcode ✓"
    let cases: [(Int, Double)] = [
      (Int.min, -0.0), (Int.max, .nan), (0, .infinity), (-1, -.infinity), (7, 1e308),
    ]
    for (id, ratio) in cases {
      let note = Note(
        id: id, text: text, ratio: ratio, done: id > 0,
        labels: ["a", "b"], child: [Note(id: 2, text: "", ratio: 0.5, done: false)])
      let got = try Self.received(note, in: vm)
      let expected: LuaValue = [
        "id": .integer(id), "text": .string(LuaString(text)), "ratio": .number(ratio),
        "done": .boolean(id > 0), "kind": "note", "labels": ["a", "b"],
        "child": ["id": 2, "text": "", "ratio": 0.5, "done": false, "kind": "note"],
      ]
      #expect(got[0] == expected)
      #expect(got[1] == "integer")
      #expect(got[2] == "float")
      #expect(got[0].labels.tableValue?.kind == .array, "the array keeps its marker")
    }
  }

  /// Names are interned per VM, by index: a VM that sees only a few late ones, and names past
  /// the first table of slots, push the right strings.
  @Test func namesPastTheFirstSlotsAndInASecondVMPushTheRightStrings() throws {
    struct Many: LuaTableConvertible {
      let names: [LuaName]
      func write(to table: inout LuaTableWriter) throws(LuaError) {
        for (offset, name) in names.enumerated() { try table.set(name, offset) }
      }
    }
    let prefix = "field_\(UUID().uuidString.prefix(8))_"
    let names = (0..<300).map { LuaName(prefix + String($0)) }
    #expect(LuaName(prefix + "7") == names[7], "equal strings make equal names")
    #expect(LuaName(prefix + "7").index == names[7].index, "and share one index")

    let first = try LuaVM(), second = try LuaVM()
    let all = try Self.received(Many(names: names), in: first)[0]
    #expect(all.tableValue?.count == 300)
    for (offset, name) in names.enumerated() {
      #expect(all.tableValue?[name.string] == .integer(offset))
    }
    let late = Array(names.suffix(3))
    let few = try Self.received(Many(names: late), in: second)[0]
    let expected = LuaValue.table(
      LuaTable(entries: [
        .string(LuaString(late[0].string)): 0, .string(LuaString(late[1].string)): 1,
        .string(LuaString(late[2].string)): 2,
      ]))
    #expect(few == expected)
    // Twice in the same VM: the second push comes from the registry.
    #expect(try Self.received(Many(names: late), in: second)[0] == few)
  }

  @Test func aValueThatCannotCrossIsNamedByItsFieldAndTheStackIsRestored() throws {
    let vm = try LuaVM()
    let bad = Note(
      id: 1, text: "", ratio: 0, done: false, labels: .table(LuaTable(entries: [.number(.nan): 1])))
    #expect(
      throws: LuaError.conversion(path: "argument #1.labels", message: "a table key cannot be NaN")
    ) {
      try Self.received(bad, in: vm)
    }
    #expect(vm.stack.top == 1, "only the traceback handler stays")
    #expect(try vm.evaluate("return 1 + 1") == [2])
  }

  @Test func nestingPastTheDepthLimitIsAnErrorNotACrash() throws {
    struct Deep: LuaTableConvertible {
      let depth: Int
      func write(to table: inout LuaTableWriter) throws(LuaError) {
        if depth > 0 { try table.set(Names.child, Deep(depth: depth - 1)) }
      }
    }
    let vm = try LuaVM()
    let error = #expect(throws: LuaError.self) { try Self.received(Deep(depth: 10_000), in: vm) }
    guard case let .conversion(path, message) = error else {
      Issue.record("expected a conversion error, got \(String(describing: error))")
      return
    }
    #expect(path.hasPrefix("argument #1.child.child.child"))
    #expect(message == LuaValue.tooDeepMessage)
    let fine = try Self.received(Deep(depth: 3), in: vm)[0]
    #expect(fine == ["child": ["child": ["child": [:]]]])
  }
}
