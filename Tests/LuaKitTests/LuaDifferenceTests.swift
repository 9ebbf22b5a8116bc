import LuaKit
import Testing

/// Differences between Lua values, printed the way Lua code reads and writes them: pinned
/// verbatim.
@Suite struct LuaDifferenceTests {
  func printed(_ old: LuaValue, _ new: LuaValue, colored: Bool = false) -> String {
    LuaValue.differences(from: old, to: new).flatMap { $0.lines(colored: colored) }
      .joined(separator: "\n")
  }

  @Test func nestedFieldsArePathsWithOneBasedIndices() {
    let old: LuaValue = [
      "todos": [["done": false, "title": "milk"], ["done": false, "title": "eggs"]],
      "filter": "all",
    ]
    var new = old
    new.todos[2].done = true
    new.filter = "done"
    #expect(
      printed(old, new) == """
        − filter = "all"
        + filter = "done"
        − todos[2].done = false
        + todos[2].done = true
        """)
  }

  @Test func addedAndRemovedFieldsHaveOneLine() {
    #expect(
      printed(["a": 1], ["b": ["x": 1]]) == """
        − a = 1
        + b = { x = 1 }
        """)
  }

  /// One element inserted or removed in the middle of a list is one line, not a shift of every
  /// element after it.
  @Test func anInsertionOrRemovalInAListIsOneLine() {
    let list: LuaValue = ["items": ["a", "b", "c", "d"]]
    #expect(printed(list, ["items": ["a", "x", "b", "c", "d"]]) == #"+ items[2] = "x""#)
    #expect(printed(list, ["items": ["a", "c", "d"]]) == #"− items[2] = "b""#)
    #expect(printed(list, ["items": ["a", "b", "c", "d", "e"]]) == #"+ items[5] = "e""#)
    #expect(
      printed(list, ["items": ["a", "B", "c", "d"]]) == """
        − items[2] = "b"
        + items[2] = "B"
        """)
  }

  /// A list whose elements came back in another order (a sort) shows each place that holds
  /// another element, whole: not a field-by-field edit of the element that was there.
  @Test func aReorderedListShowsTheElementsThatMoved() {
    let a: LuaValue = ["id": 1, "title": "b"]
    let b: LuaValue = ["id": 2, "title": "a"]
    let c: LuaValue = ["id": 3, "title": "c"]
    #expect(
      printed(["todos": [a, b, c]], ["todos": [b, a, c]]) == """
        − todos[1] = { id = 1, title = "b" }
        + todos[1] = { id = 2, title = "a" }
        − todos[2] = { id = 2, title = "a" }
        + todos[2] = { id = 1, title = "b" }
        """)
    // Equal elements are each matched once: a, a, b -> a, b, a moves b and one a.
    #expect(
      printed(["l": [a, a, b]], ["l": [a, b, a]]) == """
        − l[2] = { id = 1, title = "b" }
        + l[2] = { id = 2, title = "a" }
        − l[3] = { id = 2, title = "a" }
        + l[3] = { id = 1, title = "b" }
        """)
    // An element that also changed makes it no reordering: the places are compared in turn.
    var changed = a
    changed.title = "z"
    #expect(
      printed(["l": [a, b]], ["l": [b, changed]]) == """
        − l[1].id = 1
        + l[1].id = 2
        − l[1].title = "b"
        + l[1].title = "a"
        − l[2].id = 2
        + l[2].id = 1
        − l[2].title = "a"
        + l[2].title = "z"
        """)
  }

  /// Past 256 elements in the changed middle the matching (quadratic) is not tried: a reversed
  /// list of 300 is compared place by place.
  @Test func aLongReorderingIsComparedPlaceByPlace() {
    let old = LuaValue.table(LuaTable(array: (1...300).map { ["n": LuaValue.integer($0)] }))
    let new = LuaValue.table(
      LuaTable(array: (1...300).reversed().map { ["n": LuaValue.integer($0)] }))
    let lines = printed(old, new).split(separator: "\n")
    #expect(lines.count == 600)
    #expect(lines.first == "− [1].n = 1")
    let short = LuaValue.table(LuaTable(array: (1...256).map { ["n": LuaValue.integer($0)] }))
    let reversed = LuaValue.table(
      LuaTable(array: (1...256).reversed().map { ["n": LuaValue.integer($0)] }))
    #expect(printed(short, reversed).split(separator: "\n").first == "− [1] = { n = 1 }")
  }

  @Test func emptyListsAndMapsAreBothEmptyTables() {
    #expect(printed(["a": LuaValue.table(LuaTable(array: []))], ["a": [1]]) == "+ a[1] = 1")
    #expect(
      printed(["a": LuaValue.table(LuaTable(array: []))], ["a": "none"]) == """
        − a = {}
        + a = "none"
        """)
    #expect(printed(["a": [:]], ["a": ["k": "v"]]) == #"+ a.k = "v""#)
    // An empty array and an empty map are the same Lua value: no difference.
    #expect(
      LuaValue.differences(
        from: ["a": LuaValue.table(LuaTable(array: []))], to: ["a": [:]]
      ).isEmpty)
  }

  @Test func keysThatAreNotNamesAreBracketed() {
    #expect(
      printed([:], ["two words": 1, "end": 2, "x1": 3, 7: 4, 1.5: 5, true: 6]) == """
        + [1.5] = 5
        + [7] = 4
        + ["end"] = 2
        + ["two words"] = 1
        + x1 = 3
        + [true] = 6
        """)
  }

  /// NaN equals NaN here (a state holding one has not changed), and `0.0 == -0.0` as in Lua.
  @Test func bytesNumbersAndSpecialFloatsAreLuaLiterals() {
    let old: LuaValue = ["s": "a\r\nb", "n": 1, "nan": .number(.nan), "big": 1e300]
    let new: LuaValue = [
      "s": .string(LuaString(bytes: [0x00, 0x31, 0xFF, 0x22])), "n": 1.0, "z": -0.0,
      "nan": .number(.nan), "big": .number(.infinity),
    ]
    #expect(
      printed(old, new) == """
        − big = 1e+300
        + big = math.huge
        − n = 1
        + n = 1.0
        − s = "a\\r\\nb"
        + s = "\\0001\\255\\""
        + z = -0.0
        """)
  }

  @Test func nanAndNegativeZeroAreWrittenAsLuaReadsThem() {
    #expect(
      printed([:], ["nan": .zeroOverZero, "zero": -0.0, "inf": .number(-.infinity)]) == """
        + inf = -math.huge
        + nan = 0/0
        + zero = -0.0
        """)
  }

  @Test func differentRootsAreTheValuesAlone() {
    #expect(
      printed("increment", ["type": "add"]) == """
        − "increment"
        + { type = "add" }
        """)
    #expect(
      LuaValue.differences(from: 1, to: 2).flatMap { $0.lines(root: "state") }
        == ["− state = 1", "+ state = 2"])
  }

  @Test func colourIsRedAndGreenOnlyWhenAskedFor() {
    #expect(
      printed(["a": 1], ["a": 2], colored: true)
        == "\u{1B}[31m− a = 1\u{1B}[0m\n\u{1B}[32m+ a = 2\u{1B}[0m")
    #expect(!printed(["a": 1], ["a": 2]).contains("\u{1B}"))
  }

  @Test func aDiffDeeperThanTheLimitStopsThere() {
    var old: LuaValue = 1
    var new: LuaValue = 2
    for _ in 0..<(LuaValue.maximumDepth + 10) {
      old = ["a": old]
      new = ["a": new]
    }
    let differences = LuaValue.differences(from: old, to: new)
    #expect(differences.count == 1)
    #expect(differences[0].path.hasPrefix("a.a.a"))
    #expect(differences[0].path.split(separator: ".").count == LuaValue.maximumDepth)
  }
}
