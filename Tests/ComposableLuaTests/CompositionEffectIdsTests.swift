import ComposableLua
import Foundation
import TestSupport
import Testing

/// `for_each`, `if_let` and `presents` run a child's effects under an id of their own, which
/// they cancel when the child goes: the child's scope (`{ scope = { for_each = "rows", element
/// = 1 } }`), which no name a reducer gives can be. They were strings made from the field and
/// the element's id (`"for_each:rows:1"`): a parent's effect of that name was ended with the
/// row, a parent's cancel of it ended the row's, and rows 1 and "1" shared one.
@Suite struct CompositionEffectIdsTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("fixtures/composition-ids")

  @Test func aChildsEffectsRunUnderItsScope() async throws {
    let tests = try String(
      contentsOf: Self.fixtures.appendingPathComponent("composition_ids_test.lua"),
      encoding: .utf8)
    let results = await LuaTestRunner().run(
      source: tests, name: "composition_ids_test.lua", directory: Self.fixtures)
    #expect(results.count == 8)
    for result in results {
      #expect(result.outcome == .passed, "\(result.name): \(result.outcome)")
    }
  }
}
