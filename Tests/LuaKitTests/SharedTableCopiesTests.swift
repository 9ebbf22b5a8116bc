import Foundation
import Testing

@testable import LuaKit

/// What cannot share (JSON, Swift types) writes a shared table once at each place: allowed up to
/// `LuaValue.maximumCopiesOfSharedTables` copies, refused past it with a clear error before the
/// work is done (2^40 copies would never end).
@Suite struct SharedTableCopiesTests {
  /// A node and the nodes below it: what a DAG of nodes decodes into, a copy at each place.
  struct Node: Decodable, Equatable {
    var children: [Node]
  }

  @Test func copiesAreCountedInTheDistinctTables() throws {
    #expect(LuaTableIdentityTests.dag(levels: 0).copiesOfSharedTables(limit: 1_000) == 0)
    #expect(LuaTableIdentityTests.dag(levels: 3).copiesOfSharedTables(limit: 1_000) == 15 - 4)
    #expect(LuaTableIdentityTests.dag(levels: 40).copiesOfSharedTables(limit: 1_000) == 1_000)
    let tree: LuaValue = ["a": [1], "b": [1], "c": ["d": [2]]]
    #expect(tree.copiesOfSharedTables(limit: 1_000) == 0)
  }

  @Test func jsonOfADagIsRefusedAndOfAFewCopiesWritten() throws {
    let vm = try LuaVM()
    #expect(try vm.jsonEncode(LuaTableIdentityTests.dag(levels: 2)) == #"[[["leaf"],["leaf"]],[["leaf"],["leaf"]]]"#)
    #expect(
      LuaTableIdentityTests.error { try vm.jsonEncode(LuaTableIdentityTests.dag(levels: 40)) }
        == ": " + LuaValue.tooManyCopiesMessage)
    #expect(
      LuaTableIdentityTests.error {
        try JSONEncoder().encode(["state": LuaTableIdentityTests.dag(levels: 40)])
      }.contains("so many places"))
    let few = try JSONEncoder().encode(LuaTableIdentityTests.dag(levels: 2))
    #expect(String(decoding: few, as: UTF8.self) == #"[[["leaf"],["leaf"]],[["leaf"],["leaf"]]]"#)
  }

  /// Decoding into Swift types counts the copies it makes once it has made 100,000 tables.
  @Test func decodingADagIntoSwiftTypesIsRefused() throws {
    let vm = try LuaVM()
    func dag(levels: Int) throws -> LuaReference {
      let chunk = try vm.load(
        "local t = { children = {} } for _ = 1, \(levels) do t = { children = { t, t } } end "
          + "return t", chunkName: "dag")
      return try #require(try vm.callKeepingData(chunk))
    }
    let state = try dag(levels: 40)
    let message = LuaTableIdentityTests.error {
      try LuaDecoder().decode(Node.self, from: state, in: vm, rootName: "state")
    }
    #expect(message.hasSuffix(LuaValue.tooManyCopiesMessage), "\(message.prefix(300))")
    let leaf = Node(children: [])
    let pair = Node(children: [leaf, leaf])
    #expect(try LuaDecoder().decode(Node.self, from: try dag(levels: 2), in: vm) == Node(children: [pair, pair]))
  }
}
