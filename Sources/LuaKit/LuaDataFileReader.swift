/// Reads a data file with nothing run: the literals `LuaDataFile` writes, and the forms a person
/// writes by hand in a data file, to the value `lua5.4` would load from them.
///
/// ```
/// file       = [ "local" "shared" "=" "{" "}" { "shared" "[" integer "]" "=" value } ]
///              [ "return" [ value ] ] [ ";" ]            -- `;` also between statements
/// value      = "nil" | "true" | "false" | number | string | table | "shared" "[" integer "]"
/// number     = [ "-" ] ( numeral | "math" "." "huge" ) | [ "-" ] ( "0" | "1" ) "/" "0"
///            | "-" "(" "0" "/" "0" ")" | "(" "-9223372036854775807" "-" "1" ")"
/// table      = "{" [ field { ( "," | ";" ) field } [ "," | ";" ] ] "}"
/// field      = "[" value "]" "=" value | name "=" value | value
/// ```
///
/// Numerals in decimal and hexadecimal, integer and float, and strings in every form (quotes,
/// long brackets, every escape) are read as Lua's lexer reads them; comments anywhere. Anything
/// else (a call, an operator, a global, a loop, a function) is an error naming the line and
/// column and what was found. One token of lookahead, no backtracking: linear in the file.
/// Tables nest at most `maximumDepth` levels deep, a shared table counting at its
/// deepest place.
struct LuaDataFileReader {
  private var lexer: LuaDataFileLexer
  private var token: LuaDataFileLexer.Token = .end
  private var position = LuaDataFileLexer.Position(line: 1, column: 1)
  /// The shared tables defined so far, with their heights; nil before `local shared = {}`.
  private var shared: [Int: (value: LuaValue, height: Int)]?
  private let maximumDepth: Int
  private let maximumFields: Int
  /// How many times a shared table was referred to: a table during whose constructor this did
  /// not move is a tree.
  private var sharedReferences = 0
  /// Fields stored so far (positional, named, keyed, and shared tables defined).
  private var fields = 0

  /// What a file that may not hold json.null says of `json` (JSON's null, as decoded, is not
  /// plain data: a saved state keeps nil there).
  private static let noJSONNull =
    "found 'json': json.null (JSON's null, as decoded) is not data this file holds, which is "
    + "literals only (a saved state keeps nil where the JSON has null)"

  /// What a data file is, said in errors about something else found.
  private static let literalsOnly =
    "a data file holds literals only: no names, calls, operators or statements"

  /// Whether `json.null` is read (as `LuaValue.jsonNull`): in a file written with it only.
  private let jsonNull: Bool

  init(
    bytes: [UInt8], chunkName: String, maximumDepth: Int, maximumFields: Int,
    jsonNull: Bool = false
  ) {
    lexer = LuaDataFileLexer(bytes: bytes, chunkName: chunkName)
    self.maximumDepth = maximumDepth
    self.maximumFields = maximumFields
    self.jsonNull = jsonNull
  }

  mutating func file() throws(LuaError) -> LuaValue {
    try advance()
    if token == .name("local") {
      try advance()
      try expect(.name("shared"), "'shared' (the one local a data file declares)")
      try expect(.symbol("="), "'=' in local shared = {}")
      try expect(.symbol("{"), "{} in local shared = {}")
      try expect(.symbol("}"), "} in local shared = {}")
      shared = [:]
      try skipSemicolons()
      while token == .name("shared") { try definition() }
    }
    var value = LuaValue.nil
    if token == .name("return") {
      try advance()
      if token != .end, token != .symbol(";") {
        let (returned, height) = try self.value(depth: 1)
        try checkHeight(height)
        value = returned
      }
      try skipSemicolons()
      guard token == .end else {
        throw failure(
          "expected the end of the file after the returned value, found \(shown(token)) ("
            + Self.literalsOnly + ")")
      }
      return value
    }
    guard token == .end else {
      throw failure(
        "expected 'return' and a value, found \(shown(token)) (" + Self.literalsOnly + ")")
    }
    return value
  }

  // MARK: Statements

  /// `shared[n] = value`.
  private mutating func definition() throws(LuaError) {
    let start = position
    try advance()
    let number = try sharedNumber()
    try expect(.symbol("="), "'=' after shared[\(number)]")
    let (value, height) = try self.value(depth: 1)
    position = start
    try checkHeight(height)
    try countField(at: start)
    shared?[number] = (value, height)
    try skipSemicolons()
  }

  /// `[n]` after `shared`: its integer.
  private mutating func sharedNumber() throws(LuaError) -> Int {
    try expect(.symbol("["), "'[' after shared (shared[1])")
    guard case let .number(.integer(number)) = token else {
      throw failure("expected the integer of a shared table (shared[1]), found \(shown(token))")
    }
    try advance()
    try expect(.symbol("]"), "']' after shared[\(number)")
    return number
  }

  private mutating func skipSemicolons() throws(LuaError) {
    while token == .symbol(";") { try advance() }
  }

  // MARK: Values

  /// A value at `depth` (1 for the outermost table of a statement), with its height (0 for a
  /// scalar, 1 for a table of scalars).
  private mutating func value(depth: Int) throws(LuaError) -> (LuaValue, Int) {
    let start = position
    switch token {
    case let .string(bytes):
      try advance()
      return (.string(LuaString(bytes: bytes)), 0)
    case let .number(number):
      try advance()
      return (try division(number, negated: false, start: start), 0)
    case .symbol("-"):
      try advance()
      return (try negated(start: start), 0)
    case .symbol("{"):
      return try table(depth: depth)
    case .symbol("("):
      return (try minimumInteger(), 0)
    case .name("nil"):
      try advance()
      return (.nil, 0)
    case .name("true"), .name("false"):
      let flag = token == .name("true")
      try advance()
      return (.boolean(flag), 0)
    case .name("math"):
      try mathHuge()
      return (.number(.infinity), 0)
    case .name("shared"):
      return try sharedReference(depth: depth)
    case .name("json") where !jsonNull:
      throw failure(Self.noJSONNull)
    case .name("json"):
      try advance()
      try expect(.symbol("."), "'.null' after json (json.null is the one field of json read)")
      try expect(.name("null"), "'null' after json. (json.null is the one field of json read)")
      return (.jsonNull, 0)
    default:
      throw failure("expected a value, found \(shown(token)) (" + Self.literalsOnly + ")")
    }
  }

  /// After a `-`: a numeral, `math.huge`, or `0/0`, `1/0`: the number negated, as Lua's unary
  /// minus makes it (an integer wraps around, as `-(-9223372036854775807 - 1)` does).
  private mutating func negated(start: LuaDataFileLexer.Position) throws(LuaError) -> LuaValue {
    switch token {
    case let .number(number):
      try advance()
      return try division(number, negated: true, start: start)
    case .name("math"):
      try mathHuge()
      return .number(-.infinity)
    case .symbol("("):
      return .number(-(try zeroOverZeroInParentheses()))
    default:
      throw failure(
        "expected a number after '-', found \(shown(token)) (" + Self.literalsOnly + ")")
    }
  }

  /// `number`, or, when a `/` follows, `0/0` or `1/0` (what the writer writes for NaN and
  /// infinity): no other division is read.
  private mutating func division(
    _ number: LuaValue, negated: Bool, start: LuaDataFileLexer.Position
  ) throws(LuaError) -> LuaValue {
    guard token == .symbol("/") else {
      switch number {
      case let .integer(integer): return .integer(negated ? 0 &- integer : integer)
      case let .number(float): return .number(negated ? -float : float)
      default: return number
      }
    }
    let slash = position
    try advance()
    guard case .number(.integer(0)) = token, number == 0 || number == 1 else {
      position = slash
      throw failure(
        "found '/': only 0/0, 1/0 and -1/0 are read (no arithmetic; " + Self.literalsOnly + ")")
    }
    try advance()
    if number == 0 { return .number(LuaDataFile.zeroOverZero) }  // `-0/0` is `(-0)/0`: the same
    return .number(negated ? -.infinity : .infinity)
  }

  /// `(0/0)`, at `(`, after a `-`: the NaN of the other sign than `0/0`'s.
  private mutating func zeroOverZeroInParentheses() throws(LuaError) -> Double {
    try advance()
    let form: [LuaDataFileLexer.Token] = [
      .number(.integer(0)), .symbol("/"), .number(.integer(0)), .symbol(")"),
    ]
    for expected in form {
      guard token == expected else {
        throw failure(
          "\(Self.literalsOnly); after '-', parentheses hold only 0/0 (-(0/0), a NaN); found "
            + shown(token))
      }
      try advance()
    }
    return LuaDataFile.zeroOverZero
  }

  /// `math.huge`, at `math`.
  private mutating func mathHuge() throws(LuaError) {
    try advance()
    try expect(.symbol("."), "'.huge' after math (math.huge is the one name read)")
    try expect(.name("huge"), "'huge' after math. (math.huge is the one name read)")
  }

  /// `(-9223372036854775807 - 1)`, the smallest integer as the writer writes it.
  private mutating func minimumInteger() throws(LuaError) -> LuaValue {
    try advance()
    let form: [LuaDataFileLexer.Token] = [
      .symbol("-"), .number(.integer(.max)), .symbol("-"), .number(.integer(1)), .symbol(")"),
    ]
    for expected in form {
      guard token == expected else {
        throw failure(
          "\(Self.literalsOnly); in parentheses it holds only the smallest integer, "
            + "(-9223372036854775807 - 1); found \(shown(token))")
      }
      try advance()
    }
    return .integer(.min)
  }

  /// `shared[n]`: the table defined before under that number.
  private mutating func sharedReference(depth: Int) throws(LuaError) -> (LuaValue, Int) {
    let start = position
    guard shared != nil else {
      throw failure(
        "shared is not declared: a data file that shares tables starts local shared = {}")
    }
    try advance()
    let number = try sharedNumber()
    guard let (value, height) = shared?[number] else {
      position = start
      throw failure("shared[\(number)] is not defined before it is used")
    }
    guard depth - 1 + height <= maximumDepth else {
      position = start
      throw failure("nested more than \(maximumDepth) levels deep")
    }
    sharedReferences += 1
    return (value, height)
  }

  /// A table constructor, filled as Lua fills one: fields in order, a later one over an earlier
  /// one with the same key; positional values stored 50 at a time and at the end (Lua's
  /// `SETLIST`), so `{ [1] = "a", "b" }` holds "b" at 1, as in Lua.
  private mutating func table(depth: Int) throws(LuaError) -> (LuaValue, Int) {
    guard depth <= maximumDepth else {
      throw failure("nested more than \(maximumDepth) levels deep")
    }
    try advance()
    let referencesBefore = sharedReferences
    var entries: [LuaValue: LuaValue] = [:]
    var pending = Positional()
    var height = 1
    var keyed = false  // a field with a key: `{ nil }` alone is an empty list
    while token != .symbol("}") {
      if pending.values.count == 50 { pending.flush(into: &entries) }
      let start = position
      switch token {
      case .symbol("["):
        try advance()
        let (key, keyHeight) = try value(depth: depth + 1)
        try expect(.symbol("]"), "']' after a key")
        try expect(.symbol("="), "'=' after [key]")
        let (element, elementHeight) = try value(depth: depth + 1)
        guard keyHeight == 0 else {
          position = start
          throw failure("a table key cannot be a table (keys are strings, numbers, booleans)")
        }
        if case .other = key {
          position = start
          throw failure("a table key cannot be json.null (keys are strings, numbers, booleans)")
        }
        try store(element, at: key, in: &entries, start: start)
        height = max(height, elementHeight + 1)
        keyed = true
      case let .name(name) where !luaReservedWords.contains(name):
        guard try peekIsAssignment() else {
          guard name == "math" || name == "shared" || name == "json" else {
            throw failure(
              "found the name '\(name)' (" + Self.literalsOnly + "; a field is name = value)")
          }
          let (element, elementHeight) = try value(depth: depth + 1)
          try countField(at: start)
          pending.values.append(element)
          height = max(height, elementHeight + 1)
          break
        }
        try advance()
        try advance()
        let (element, elementHeight) = try value(depth: depth + 1)
        try store(element, at: .string(LuaString(name)), in: &entries, start: start)
        height = max(height, elementHeight + 1)
        keyed = true
      default:
        let (element, elementHeight) = try value(depth: depth + 1)
        try countField(at: start)
        pending.values.append(element)
        height = max(height, elementHeight + 1)
      }
      guard token == .symbol(",") || token == .symbol(";") else { break }
      try advance()
    }
    try expect(.symbol("}"), "',' or '}' in a table")
    let positional = pending.stored + pending.values.count > 0
    pending.flush(into: &entries)
    // An empty list is written `{ nil }`: positional fields only, none left.
    let isArray =
      entries.isEmpty ? positional && !keyed : LuaTable.keysAreSequence(entries)
    let table = LuaTable(
      kind: isArray ? .array : .map, normalizedEntries: entries,
      isTree: sharedReferences == referencesBefore)
    return (.table(table), height)
  }

  /// A constructor's positional values not stored yet, and how many were.
  private struct Positional {
    var values: [LuaValue] = []
    var stored = 0

    /// Stores them at the next indices, as `SETLIST` does (nil removing what a key put there).
    mutating func flush(into entries: inout [LuaValue: LuaValue]) {
      for (offset, element) in values.enumerated() {
        let key = LuaValue.integer(stored + offset + 1)
        if element == .nil { entries.removeValue(forKey: key) } else { entries[key] = element }
      }
      stored += values.count
      values.removeAll(keepingCapacity: true)
    }
  }

  /// Whether the token after this name is `=` (the name is a field's); the lexer is copied, so
  /// nothing is consumed.
  private func peekIsAssignment() throws(LuaError) -> Bool {
    var ahead = lexer
    return try ahead.next().0 == .symbol("=")
  }

  /// Counts one more field stored, refusing more than `maximumFields`: a file of 32 MiB of
  /// `{},` would be millions of tables, gigabytes once in Swift and in Lua.
  private mutating func countField(at start: LuaDataFileLexer.Position) throws(LuaError) {
    fields += 1
    guard fields <= maximumFields else {
      position = start
      throw failure("more than \(maximumFields) fields: more than a data file may hold")
    }
  }

  /// `entries[key] = element`, as a table constructor stores it: nil removes, a float key with
  /// an integral value is the integer key, a nil or NaN key is an error.
  private mutating func store(
    _ element: LuaValue, at key: LuaValue, in entries: inout [LuaValue: LuaValue],
    start: LuaDataFileLexer.Position
  ) throws(LuaError) {
    try countField(at: start)
    if key == .nil {
      position = start
      throw failure("a table key cannot be nil")
    }
    if case let .number(number) = key, number.isNaN {
      position = start
      throw failure("a table key cannot be NaN")
    }
    if element == .nil {
      entries.removeValue(forKey: key.normalizedKey)
    } else {
      entries[key.normalizedKey] = element
    }
  }

  private mutating func checkHeight(_ height: Int) throws(LuaError) {
    guard height <= maximumDepth else {
      throw failure("nested more than \(maximumDepth) levels deep")
    }
  }

  // MARK: Tokens

  private mutating func advance() throws(LuaError) {
    (token, position) = try lexer.next()
  }

  private mutating func expect(_ expected: LuaDataFileLexer.Token, _ what: String) throws(LuaError)
  {
    guard token == expected else { throw failure("expected \(what), found \(shown(token))") }
    try advance()
  }

  private func failure(_ message: String) -> LuaError {
    lexer.error(message, at: position, atEnd: token == .end)
  }

  /// A token as an error shows it: `'print'`, `'*'`, `"a string"`, `the end of the file`.
  private func shown(_ token: LuaDataFileLexer.Token) -> String {
    switch token {
    case let .name(name): return "'\(name)'"
    case let .symbol(symbol): return "'\(symbol)'"
    case let .number(number): return "the number \(number)"
    case let .string(bytes):
      return "the string \(LuaValue.string(LuaString(bytes: bytes)).description(limit: 40))"
    case .end: return "the end of the file"
    }
  }
}
