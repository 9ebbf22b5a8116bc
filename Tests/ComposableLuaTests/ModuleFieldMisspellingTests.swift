import ComposableLua
import LuaKit
import Testing

/// A field of a feature's table that reads as one the host reads, mistyped, where that one is
/// missing: said at load. `intial_state` started the feature from no state, blamed on persist's
/// `select`; `persistence = composable.persist{...}` kept nothing on disk, silently.
@Suite struct ModuleFieldMisspellingTests {
  static func loadError(_ fields: String) -> String? {
    let source = """
      local composable = require("composable")
      local F = {}
      \(fields)
      return F
      """
    do {
      _ = try LuaFeature(source: source, file: "f.lua", print: { _ in })
      return nil
    } catch {
      return "\(error)"
    }
  }

  static let reduce = "F.reduce = function() end"

  @Test(arguments: [
    ("F.intial_state = function() return {} end\n" + reduce, "intial_state", "initial_state"),
    ("F.reducer = function() end", "reducer", "reduce"),
    ("F.migrat = function(s) return s end\n" + reduce, "migrat", "migrate"),
    ("F.persistence = composable.persist{ path = \"f.saved.lua\" }\n" + reduce, "persistence",
     "persist"),
    ("F.presist = composable.persist{ path = \"f.saved.lua\" }\n" + reduce, "presist", "persist"),
  ])
  func aMistypedFieldIsNamed(fields: String, found: String, meant: String) throws {
    let message = try #require(Self.loadError(fields))
    #expect(
      message.hasSuffix(
        "the returned table has \(found) but no \(meant), which the host reads: did you mean "
          + "\(meant)?"), "\(message)")
  }

  /// Fields of the feature's own are let be: far from every name, or beside the one they
  /// resemble.
  @Test func theFeaturesOwnFieldsLoad() {
    #expect(
      Self.loadError(
        """
        F.initial_state = function() return {} end
        F.initial_states = { {}, {} }
        F.migrate = function(s) return s end
        F.migrates = true
        F.render = function() end
        F.helpers = { path = "x" }
        F.reduced = 1
        \(Self.reduce)
        """) == nil)
  }
}
