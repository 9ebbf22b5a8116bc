import LuaKit
import Testing

/// The encoder refuses a value deeper than `maximumDepth` tables, counting the tables it makes
/// in Lua as a snapshot counts them: it takes a value exactly when what it would make is at
/// most that deep. Arrays and dictionaries made no level (a tree of dictionaries 400 tables deep
/// was encoded, and then could not be read back), while an `Optional` or a value encoded as one
/// scalar made one (a chain of optional objects 101 deep was refused).
@Suite struct EncodedDepthTests {
  struct Keyed: Encodable { var kids: [String: Keyed] }
  struct Numbered: Encodable { var kids: [Int: Numbered] }
  struct Listed: Encodable { var kids: [Listed] }
  struct Tagged: Encodable {
    var tag: Tag
    var next: [String: Tagged]?
  }
  enum Tag: String, Encodable { case one }
  final class Linked: Encodable {
    var next: Linked?
    init(next: Linked?) { self.next = next }
  }
  indirect enum Nested: Encodable {
    case leaf
    case node(Nested)
  }

  /// Values of each shape, `count` links long.
  static func shapes(_ count: Int) -> [(String, any Encodable)] {
    var keyed = Keyed(kids: [:]), numbered = Numbered(kids: [:]), listed = Listed(kids: [])
    var linked = Linked(next: nil), nested = Nested.leaf, tagged = Tagged(tag: .one, next: nil)
    for _ in 1..<count {
      keyed = Keyed(kids: ["k": keyed])
      numbered = Numbered(kids: [1: numbered])
      listed = Listed(kids: [listed])
      linked = Linked(next: linked)
      nested = .node(nested)
      tagged = Tagged(tag: .one, next: ["t": tagged])
    }
    return [
      ("keyed", keyed), ("numbered", numbered), ("listed", listed), ("linked", linked),
      ("nested", nested), ("tagged", tagged), ("in a dictionary", ["root": keyed]),
      ("in an array", [listed]), ("optional", Optional(linked)),
    ]
  }

  static let depthSource = """
    local function depth(t)
      if type(t) ~= "table" then return 0 end
      local most = 0
      for _, v in pairs(t) do most = math.max(most, depth(v)) end
      return most + 1
    end
    return depth
    """

  /// Each value is taken exactly when what it makes (with no limit to speak of) is no deeper
  /// than the limit, and a refusal says so.
  @Test(arguments: [200, 2, 3, 7]) func aValueIsTakenExactlyWhenItsTablesFit(limit: Int) throws {
    let vm = try LuaVM()
    guard case let .function(depth) = try vm.evaluate(Self.depthSource)[0] else {
      Issue.record("no depth function")
      return
    }
    var unlimited = LuaEncoder(), limited = LuaEncoder()
    unlimited.maximumDepth = 1_000
    limited.maximumDepth = limit
    var taken = 0, refused = 0
    let counts =
      limit == 200 ? [48, 49, 50, 51, 98, 99, 100, 101, 102, 199, 200, 201] : Array(1...8)
    for count in counts {
      for (name, value) in Self.shapes(count) {
        let made = try unlimited.encode(value, in: vm)
        guard case let .integer(tables) = try vm.call(depth, arguments: [.reference(made)])[0]
        else { continue }
        do {
          _ = try limited.encode(value, in: vm)
          taken += 1
          #expect(tables <= limit, "\(name) of \(count): \(tables) tables taken")
        } catch {
          refused += 1
          #expect(tables > limit, "\(name) of \(count): \(tables) tables refused: \(error)")
          #expect("\(error)".hasSuffix("nested more than \(limit) levels deep"), "\(error)")
        }
      }
    }
    #expect(taken > 5 && refused > 5, "\(taken) taken, \(refused) refused")
  }

  /// The refusal names the first table too deep, whatever holds it.
  @Test func theRefusalNamesTheTableTooDeep() throws {
    let vm = try LuaVM()
    var encoder = LuaEncoder()
    encoder.maximumDepth = 2
    let three: [String: [String: [String: Int]]] = ["a": ["b": ["c": 1]]]
    #expect(
      throws: LuaError.conversion(path: "value.a.b", message: "nested more than 2 levels deep")
    ) {
      _ = try encoder.encode(three, in: vm)
    }
    let listed = Listed(kids: [Listed(kids: [])])  // { kids = { { kids = {} } } }
    #expect(
      throws: LuaError.conversion(path: "value.kids[1]", message: "nested more than 2 levels deep")
    ) {
      _ = try encoder.encode(listed, in: vm)
    }
    struct Holding: Encodable { var value: LuaValue }
    #expect(
      throws: LuaError.conversion(path: "value.value", message: "nested more than 2 levels deep")
    ) {
      _ = try encoder.encode(Holding(value: ["x": ["y": 1]]), in: vm)
    }
    // An optional or a raw value makes no table.
    struct Wrapped: Encodable { var inner: [String: Tag]? }
    let wrapped = try encoder.encode(Wrapped(inner: ["x": .one]), in: vm)
    #expect(try vm.value(of: wrapped) == ["inner": ["x": "one"]])
  }
}
