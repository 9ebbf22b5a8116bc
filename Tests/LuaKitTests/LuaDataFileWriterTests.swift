import LuaDataGenerators
import Testing

@testable import LuaKit

/// What the data file writer writes reads back as the value it was, shared tables shared, at
/// every depth the limit allows, through our reader and through Lua itself.
@Suite struct LuaDataFileWriterTests {
  static func roundTrip(_ value: LuaValue) throws -> LuaValue {
    try LuaDataFile.read(Array(try LuaDataFile.text(of: value).utf8), chunkName: "saved.lua")
  }

  /// A NaN comes back with its sign: `0/0` for the one Lua's `0/0` makes here, `-(0/0)` for the
  /// other (Swift's `.nan` is the other on x86), in a description as in a file.
  @Test func aNaNKeepsItsSign() throws {
    for nan in [LuaDataFile.zeroOverZero, -LuaDataFile.zeroOverZero, .nan, -.nan] {
      let back = try Self.roundTrip(["x": .number(nan), "list": [.number(nan)]])
      #expect(back.x.doubleValue?.sign == nan.sign)
      #expect(back.list[1].doubleValue?.sign == nan.sign)
      #expect(
        LuaValue.number(nan).description
          == (nan.sign == LuaDataFile.zeroOverZero.sign ? "0/0" : "-(0/0)"))
    }
    #expect(try LuaDataFile.text(of: [.number(-LuaDataFile.zeroOverZero)]).contains("-(0/0)"))
  }

  @Test func aSharedTableIsNamedOnceAndReferredToAfter() throws {
    let leaf: LuaValue = ["leaf"]
    let pair: LuaValue = [leaf, leaf]
    let value: LuaValue = ["a": pair, "b": pair, "c": [leaf]]
    #expect(
      try LuaDataFile.text(of: value) == """
        local shared = {}
        shared[1] = { "leaf" }
        shared[2] = { shared[1], shared[1] }
        return {
          a = shared[2],
          b = shared[2],
          c = { shared[1] },
        }

        """)
    #expect(try LuaDataFile.text(of: ["a": [1]]) == "return {\n  a = { 1 },\n}\n")
    #expect(
      try LuaDataFile.expression(of: value, indent: 2) == """
        (function()
          local shared = {}
          shared[1] = { "leaf" }
          shared[2] = { shared[1], shared[1] }
          return {
            a = shared[2],
            b = shared[2],
            c = { shared[1] },
          }
          end)()
        """)
  }

  /// `t = {t, t}` forty times: 41 lines, read back with the same sharing, by us and by Lua.
  @Test func aDagOf2To40PathsIsWrittenInItsDistinctTables() throws {
    let vm = try LuaVM()
    let dag = try vm.evaluate(LuaTableIdentityTests.dagSource)[0]
    let text = try LuaDataFile.text(of: dag)
    #expect(text.split(separator: "\n").count == 42)
    let read = try LuaDataFile.read(Array(text.utf8), chunkName: "dag")
    #expect(read == dag)
    #expect(read.sharingShape == dag.sharingShape)
    let loaded = try vm.evaluate(text)[0]
    #expect(loaded.sharingShape == dag.sharingShape)
  }

  /// The property of item 6: random states of every kind, every byte, shared tables, and depth
  /// up to the limit come back equal and shared alike, from our reader and from Lua's `load`.
  @Test func randomStatesComeBackEqualAndSharedAlike() throws {
    let vm = try LuaVM()
    var make = RandomLuaData(seed: 2027_01_28)
    for iteration in 0..<400 {
      let state = make.state(deepest: iteration % 5 == 0 ? 200 : nil)
      let text = try LuaDataFile.text(of: state)
      let read = try LuaDataFile.read(Array(text.utf8), chunkName: "saved.lua")
      #expect(read == state, "iteration \(iteration)")
      #expect(read.sharingShape == state.sharingShape, "iteration \(iteration)")
      let loaded = try vm.evaluate(text)[0]
      #expect(loaded == state, "iteration \(iteration): Lua loads another value")
      #expect(loaded.sharingShape == state.sharingShape, "iteration \(iteration)")
      if read != state || loaded != state { return }
    }
  }

  /// What is written at the limit is read back; one level more is refused at the write, with the
  /// field named, not later at the read.
  @Test func theDepthWrittenIsTheDepthRead() throws {
    var make = RandomLuaData(seed: 7)
    let deepest = make.state(fields: 1, deepest: 200)
    #expect(try Self.roundTrip(deepest) == deepest)
    let tooDeep = make.state(fields: 1, deepest: 201)
    let message = LuaTableIdentityTests.error { try LuaDataFile.text(of: tooDeep, root: "state") }
    #expect(message.hasPrefix("state.deep.next.next"), "\(message)")
    #expect(message.hasSuffix(": nested more than 200 levels deep"), "\(message)")
  }

  /// The writer counts fields as the reader does (each entry, each shared table's definition, an
  /// empty list's `{ nil }`), so a value is refused at the write exactly when its file would be
  /// refused at the read: a state saved with more was set aside at the next start, every time.
  @Test func theFieldsWrittenAreTheFieldsRead() throws {
    var make = RandomLuaData(seed: 2026_11_28)
    let limits = [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610]
    var refusedSomewhere = 0
    for iteration in 0..<300 {
      let state = make.state(deepest: iteration % 7 == 0 ? 120 : nil)
      let text = Array(try LuaDataFile.text(of: state, maximumFields: .max).utf8)
      for limit in limits {
        let written = (try? LuaDataFile.text(of: state, maximumFields: limit)) != nil
        let read =
          (try? LuaDataFile.read(text, chunkName: "saved.lua", maximumFields: limit)) != nil
        #expect(written == read, "iteration \(iteration), at most \(limit) fields")
        if written != read { return }
        if !written { refusedSomewhere += 1 }
      }
    }
    #expect(refusedSomewhere > 100)  // the limits were reached, not only passed
    let full = LuaValue.table(LuaTable(array: Array(repeating: .integer(0), count: 1_000_001)))
    let message = LuaTableIdentityTests.error { try LuaDataFile.text(of: full, root: "state") }
    #expect(
      message
        == "state: 1000001 fields (of every table, counted together) are more than the 1000000 "
        + "a data file holds")
    let list = LuaValue.table(LuaTable(array: []))
    #expect(throws: LuaError.self) { try LuaDataFile.text(of: ["a": list], maximumFields: 0) }
    #expect(try LuaDataFile.text(of: ["a": list], maximumFields: 2) == "return { a = { nil } }\n")
  }

  /// Nor more bytes than the reader takes: a byte that is not UTF-8 is written as a four-byte
  /// escape, so 9 MiB of them made a session of 36 MiB that no replay would read.
  @Test func theBytesWrittenAreNoMoreThanTheReaderTakes() throws {
    let escaped = LuaValue.string(LuaString(bytes: Array(repeating: 0xFF, count: 100)))
    let text = try LuaDataFile.text(of: ["s": escaped])
    #expect(text.utf8.count == 421)  // each byte as `\255`
    #expect(try LuaDataFile.text(of: ["s": escaped], maximumBytes: 421) == text)
    let message = LuaTableIdentityTests.error {
      try LuaDataFile.text(of: ["s": escaped], root: "session", maximumBytes: 420)
    }
    #expect(message == "session: written, it is 421 bytes, more than the 420 a data file holds")
    // The default is the reader's limit.
    #expect(LuaDataFile.maximumSize == 32 << 20)
  }

  /// What plain data cannot hold is refused at the write, named.
  @Test func whatIsNotDataIsRefusedAtTheWriteWithItsField() throws {
    let vm = try LuaVM()
    let function = try vm.evaluate("return { f = print }")[0].f
    #expect(
      LuaTableIdentityTests.error {
        try LuaDataFile.text(of: ["a": ["f": function]], root: "state")
      }
        == "state.a.f: a function cannot be saved: keep data only")
    // JSON's null, decoded into a state: named as such, with what to keep instead.
    let sandbox = try vm.makeSandbox(.init(preloaded: ["json": .other(vm.jsonModule())]))
    let decoded = try vm.evaluate(
      #"return require('json').decode('{"status": null}')"#, chunkName: "t", in: sandbox)[0]
    #expect(
      LuaTableIdentityTests.error { try LuaDataFile.text(of: ["b": decoded], root: "state") }
        == "state.b.status: json.null (JSON's null, as decoded) cannot be saved: a saved state "
        + "holds data only. To fix, keep nil where the JSON has null (`if value == json.null "
        + "then value = nil end`; `value ~= json.null and value or nil` would lose false too)")
    // Of many, the first in the order the file is written is named, every time (found in hash
    // order, the place named changed from one save to the next: a new user's finding).
    var many = LuaTable()
    for letter in "zyxwvutsrqponmlkjihgfedcba" {
      many[.string(LuaString(String(letter)))] = ["list": [1, decoded["status"]]]
    }
    for _ in 0..<3 {
      #expect(
        LuaTableIdentityTests.error { try LuaDataFile.text(of: .table(many), root: "state") }
          .hasPrefix("state.a.list[2]: json.null (JSON's null, as decoded) cannot be saved"))
    }
    let tableKey = LuaValue.table(LuaTable(entries: [["k": 1]: 1]))
    #expect(
      LuaTableIdentityTests.error { try LuaDataFile.text(of: ["a": tableKey], root: "state") }
        == "state.a: a key that is table cannot be saved")
    let nanKey = LuaValue.table(LuaTable(entries: [.number(.nan): 1]))
    #expect(
      LuaTableIdentityTests.error { try LuaDataFile.text(of: ["a": nanKey], root: "state") }
        == "state.a: a key that is NaN cannot be saved")
  }

  /// Every byte, alone and mixed, in values and in keys, written and read back exactly.
  @Test func everyByteIsWrittenAndReadBack() throws {
    var table = LuaTable()
    for byte in 0...255 {
      table[.string(LuaString(bytes: [UInt8(byte)]))] = .string(
        LuaString(bytes: [UInt8(byte), 0x31, UInt8(byte)]))
    }
    table["all"] = .string(LuaString(bytes: (0...255).map { UInt8($0) }))
    let value = LuaValue.table(table)
    #expect(try Self.roundTrip(value) == value)
    #expect(
      try LuaDataFile.text(of: ["del": .string(LuaString(bytes: [127]))])
        == "return { del = \"\\127\" }\n")
  }
}
