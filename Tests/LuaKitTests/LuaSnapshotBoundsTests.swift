import Testing

@testable import LuaKit

/// A snapshot costs what the VM holds, whatever the shape of the data: shared tables and long
/// strings are read once, and depth is bounded with an error naming the field.
@Suite struct LuaSnapshotBoundsTests {
  @Test func aTableSharedAtEveryLevelIsReadOnce() throws {
    let vm = try LuaVM()
    // 2^40 paths, 41 tables.
    let results = try vm.evaluate("""
      local t = { leaf = true }
      for _ = 1, 40 do t = { t, t } end
      return t
      """)
    var node = results[0]
    for level in 0..<40 { node = node[level % 2 + 1] }
    #expect(node == ["leaf": true])
  }

  @Test func aLongStringReferencedManyTimesIsCopiedOnce() throws {
    let vm = try LuaVM()
    let results = try vm.evaluate("""
      local big = string.rep('x', 4 << 20)
      local t = {}
      for i = 1, 20 do t[i] = big end
      return t
      """)
    let strings = results[0].tableValue?.sequence.compactMap { value -> LuaString? in
      if case let .string(string) = value { return string } else { return nil }
    } ?? []
    #expect(strings.count == 20)
    let storages = Set(strings.map { string in
      string.bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    })
    #expect(storages.count == 1)
    #expect(strings[0].bytes.count == 4 << 20)
  }

  @Test func aStateTooDeepIsAnErrorNamingTheField() throws {
    let vm = try LuaVM()
    #expect {
      try vm.evaluate("""
        local t = {}
        local node = t
        for _ = 1, 10000 do node.next = {} node = node.next end
        return { list = t }
        """)
    } throws: { error in
      guard case let .conversion(path, message) = error as? LuaError else { return false }
      return path.hasPrefix("result #1.list.next.next") && path.count < 1200
        && message == "nested more than 200 levels deep"
    }
  }

  @Test func aValueTooDeepToPushIsAnErrorNamingTheField() throws {
    let vm = try LuaVM()
    var value: LuaValue = ["leaf": true]
    for _ in 0..<10_000 { value = ["next": value] }
    #expect {
      try vm.reference(to: ["list": value])
    } throws: { error in
      guard case let .conversion(path, message) = error as? LuaError else { return false }
      return path.hasPrefix("value.list.next.next") && message == "nested more than 200 levels deep"
    }
    #expect(try vm.evaluate("return 1") == [1])
  }
}
