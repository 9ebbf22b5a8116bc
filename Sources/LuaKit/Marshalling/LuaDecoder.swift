import CLua
import Foundation
import LuaSupport

/// Decodes `Decodable` Swift values straight from the Lua stack, by the rules of `LuaEncoder`.
///
/// Beyond those rules, decoding checks what Lua cannot promise:
/// - an integral float decodes into an integer type only when exact (`2.0` -> 2; `2.5` fails);
///   an integer decodes into `Double`;
/// - a string decodes into `String` only when it is valid UTF-8;
/// - an array must have keys exactly 1...n: a hole or another key is an error;
/// - an enum accepts `{ type = "case_name", ... }`, or the bare string `"case_name"`;
/// - a table that contains itself is an error, as is nesting deeper than `maximumDepth`.
///
/// Errors name the path of the field: `state.todos[3].title: expected string, got boolean`.
public struct LuaDecoder {
  /// How deep tables may nest in what is decoded; deeper is an error. `LuaValue.maximumDepth` by
  /// default.
  public var maximumDepth = LuaValue.maximumDepth

  /// A decoder that refuses nesting deeper than `LuaValue.maximumDepth`.
  ///
  /// ```swift
  /// struct Counter: Decodable { var count: Int }
  /// let counter = try LuaDecoder().decode(Counter.self, from: ["count": 3], in: vm)
  /// ```
  public init() {}

  /// Decodes the value behind a handle.
  public func decode<Value: Decodable>(
    _ type: Value.Type, from reference: LuaReference, in vm: LuaVM, rootName: String = "value"
  ) throws(LuaError) -> Value {
    try vm.stack.guarded { () throws(LuaError) -> Value in
      try vm.stack.push(reference, in: vm)
      return try decode(type, at: -1, stack: vm.stack, vm: vm, rootName: rootName)
    }
  }

  /// Decodes a Swift-side `LuaValue` (it goes through Lua, exactly as a value from Lua would).
  public func decode<Value: Decodable>(
    _ type: Value.Type, from value: LuaValue, in vm: LuaVM, rootName: String = "value"
  ) throws(LuaError) -> Value {
    try vm.stack.guarded { () throws(LuaError) -> Value in
      try vm.stack.push(value, in: vm)
      return try decode(type, at: -1, stack: vm.stack, vm: vm, rootName: rootName)
    }
  }

  func decode<Value: Decodable>(
    _ type: Value.Type, at index: Int32, stack: LuaStack, vm: LuaVM, rootName: String
  ) throws(LuaError) -> Value {
    let decoding = LuaDecoding(stack: stack, vm: vm, maximumDepth: maximumDepth)
    do {
      return try stack.guarded { try decoding.decode(type, at: stack.absolute(index)) }
    } catch {
      throw LuaDecoding.luaError(error).rooted(at: rootName)
    }
  }
}

/// The state of one decoding: the stack it reads and the tables on the current path.
final class LuaDecoding {
  let stack: LuaStack
  let vm: LuaVM
  let maximumDepth: Int
  /// The tables being decoded, outermost first, with the stack slot each one is in.
  private var path: [(table: UnsafeRawPointer, slot: Int32)] = []
  /// What the decoding needs to know about a type that is not a scalar, found once per type.
  private var knownTypes: [(type: ObjectIdentifier, facts: TypeFacts)] = []

  struct TypeFacts {
    var direct: (any LuaDirectDecodable.Type)?
    var isEnum: Bool
  }

  private func facts(for type: Any.Type) -> TypeFacts {
    let id = ObjectIdentifier(type)
    for entry in knownTypes.reversed() where entry.type == id { return entry.facts }
    let facts = TypeFacts(direct: type as? any LuaDirectDecodable.Type, isEnum: isEnumType(type))
    knownTypes.append((id, facts))
    return facts
  }
  /// One decoder per nesting depth, reused: a value's decoder is done with before its next
  /// sibling starts, and allocating one per struct costs more than decoding its fields.
  private var decoders: [LuaValueDecoder] = []
  private var depth = 0

  private func borrowDecoder(index: Int32, enumType: Any.Type?) -> LuaValueDecoder {
    if depth == decoders.count {
      decoders.append(LuaValueDecoder(decoding: self, index: 0, enumType: nil))
    }
    let decoder = decoders[depth]
    depth += 1
    decoder.index = index
    decoder.enumType = enumType
    return decoder
  }

  init(stack: LuaStack, vm: LuaVM, maximumDepth: Int) {
    self.stack = stack
    self.vm = vm
    self.maximumDepth = maximumDepth
  }

  var L: OpaquePointer { stack.L }

  func mismatch(_ expected: String, at index: Int32) -> LuaError {
    var got = stack.typeName(at: index)
    if lua_type(L, index) == LUA_TNUMBER, lua_isinteger(L, index) == 0 {
      got += " \(lua_tonumberx(L, index, nil))"
    }
    return .conversion(path: "", message: "expected \(expected), got \(got)")
  }

  /// Decodes the value at the absolute `index`; leaves the stack as it found it.
  func decode<Value: Decodable>(_ type: Value.Type, at index: Int32) throws -> Value {
    if type == String.self { return try unsafeBitCast(string(at: index), to: Value.self) }
    if type == Int.self { return try unsafeBitCast(integer(Int.self, at: index), to: Value.self) }
    if type == Bool.self { return try unsafeBitCast(bool(at: index), to: Value.self) }
    if type == Double.self { return try unsafeBitCast(double(at: index), to: Value.self) }
    if type == Date.self {
      return try unsafeBitCast(Date(timeIntervalSince1970: double(at: index)), to: Value.self)
    }
    if type == Data.self { return try unsafeBitCast(data(at: index), to: Value.self) }
    if type == URL.self { return try unsafeBitCast(url(at: index), to: Value.self) }
    if type == UUID.self { return try unsafeBitCast(uuid(at: index), to: Value.self) }
    if type == LuaValue.self {
      return try unsafeBitCast(stack.value(at: index, in: vm), to: Value.self)
    }
    let facts = facts(for: type)
    if let direct = facts.direct { return try direct.decode(Value.self, from: self, at: index) }
    return try decodeComposite(type, at: index, isEnum: facts.isEnum)
  }

  /// Element `position` of the array at `table`.
  func decodeElement<Element: Decodable>(
    _ type: Element.Type, at position: Int, of table: Int32
  ) throws -> Element {
    let top = stack.top
    defer { stack.setTop(top) }
    lua_rawgeti(L, table, lua_Integer(position))
    do { return try decode(type, at: top + 1) } catch {
      throw LuaDecoding.luaError(error).under(LuaPath.component(index: position))
    }
  }

  /// The `count` elements of the array at `table`, each read by `read` from the top of the
  /// stack. Inlined so that each scalar type gets a loop of its own.
  @inline(__always)
  func scalars<Scalar>(
    _ count: Int, of table: Int32, _ read: (Int32) throws -> Scalar
  ) throws -> [Scalar] {
    var result: [Scalar] = []
    result.reserveCapacity(count)
    let top = stack.top
    var position = 1
    while position <= count {
      lua_rawgeti(L, table, lua_Integer(position))
      do { result.append(try read(top + 1)) } catch {
        stack.setTop(top)
        throw LuaDecoding.luaError(error).under(LuaPath.component(index: position))
      }
      lua_settop(L, top)
      position += 1
    }
    return result
  }

  /// The length of the array at `index`, after checking its keys are exactly 1...n.
  func arrayCount(at index: Int32) throws -> Int {
    guard lua_type(L, index) == LUA_TTABLE else { throw mismatch("array", at: index) }
    let length = Int(lua_rawlen(L, index))
    var entries = 0
    lua_pushnil(L)
    while lk_next(L, index) != 0 {
      lua_settop(L, -2)
      entries += 1
      let isIndex =
        lua_type(L, -1) == LUA_TNUMBER && lua_isinteger(L, -1) != 0
        && (1...max(length, 1)).contains(Int(lua_tointegerx(L, -1, nil)))
      if !isIndex {
        let key = try stack.value(at: -1, in: vm)
        lua_settop(L, -2)
        throw LuaError.conversion(
          path: "", message: "expected an array (keys 1 to \(length)), found the key \(key)")
      }
    }
    if entries != length {
      for position in 1...length where lua_rawgeti(L, index, lua_Integer(position)) == LUA_TNIL {
        lua_settop(L, -2)
        throw LuaError.conversion(
          path: "", message: "expected an array without holes, but [\(position)] is nil")
      }
    }
    return length
  }

  /// Calls `body` with the stack slot of each key of the table at `table` (its value is in the
  /// slot after).
  func forEachKey(of table: Int32, _ body: (Int32) throws -> Void) throws {
    guard lua_type(L, table) == LUA_TTABLE else { throw mismatch("table", at: table) }
    let top = stack.top
    defer { stack.setTop(top) }
    lua_pushnil(L)
    while lk_next(L, table) != 0 {
      try body(stack.top - 1)
      lua_settop(L, -2)
    }
  }

  /// Tables entered so far; past `copiesCheckedAfter`, which were entered (to count copies).
  private var tablesEntered = 0
  private var entered: Set<UnsafeRawPointer> = []
  private var copies = 0
  /// A Swift value holds a copy of a shared table at each place: decoding counts the copies,
  /// once it has entered this many tables (a state of plain tables never pays for the count).
  static let copiesCheckedAfter = 100_000

  /// Refuses a value that would make more than `LuaValue.maximumCopiesOfSharedTables` copies:
  /// `t = {t, t}` forty times over is 41 tables in Lua and 2^41 structs in Swift.
  private func countCopy(of table: UnsafeRawPointer) throws {
    tablesEntered += 1
    guard tablesEntered > Self.copiesCheckedAfter else { return }
    if !entered.insert(table).inserted { copies += 1 }
    guard copies <= LuaValue.maximumCopiesOfSharedTables else {
      throw LuaError.conversion(path: "", message: LuaValue.tooManyCopiesMessage)
    }
  }

  private func decodeComposite<Value: Decodable>(
    _ type: Value.Type, at index: Int32, isEnum: Bool
  ) throws -> Value {
    let top = stack.top
    defer { stack.setTop(top) }
    guard stack.reserve(8) else { throw LuaError.conversion(path: "", message: "nesting too deep") }
    var entersTable = false
    if lua_type(L, index) == LUA_TTABLE, let table = lua_topointer(L, index) {
      // A wrapper (Optional, a single-value type) decodes the same stack slot again: not a
      // cycle. A cycle reaches a table of the path through a field, in a new slot.
      let isWrapper = path.last.map { $0.table == table && $0.slot == index } ?? false
      if !isWrapper {
        if path.contains(where: { $0.table == table }) {
          throw LuaError.conversion(path: "", message: "cycle: the table contains itself")
        }
        if path.count >= maximumDepth {
          throw LuaError.conversion(
            path: "", message: "nested more than \(maximumDepth) levels deep")
        }
        try countCopy(of: table)
        path.append((table, index))
        entersTable = true
      }
    }
    defer { if entersTable { path.removeLast() } }
    let decoder = borrowDecoder(index: index, enumType: isEnum ? type : nil)
    defer { depth -= 1 }
    return try Value(from: decoder)
  }

  // MARK: Scalars

  func string(at index: Int32) throws -> String {
    guard lua_type(L, index) == LUA_TSTRING else { throw mismatch("string", at: index) }
    guard let string = stack.string(at: index) else {
      throw LuaError.conversion(path: "", message: "the string is not valid UTF-8")
    }
    return string
  }

  func integer<Integer: FixedWidthInteger>(_ type: Integer.Type, at index: Int32) throws -> Integer
  {
    guard lua_type(L, index) == LUA_TNUMBER else { throw mismatch("integer", at: index) }
    let wide: lua_Integer
    if lua_isinteger(L, index) != 0 {
      wide = lua_tointegerx(L, index, nil)
    } else {
      guard let exact = lua_Integer(exactly: lua_tonumberx(L, index, nil)) else {
        throw mismatch("integer", at: index)
      }
      wide = exact
    }
    guard let value = Integer(exactly: wide) else {
      throw LuaError.conversion(path: "", message: "\(wide) is out of range for \(Integer.self)")
    }
    return value
  }

  func double(at index: Int32) throws -> Double {
    guard lua_type(L, index) == LUA_TNUMBER else { throw mismatch("number", at: index) }
    return lua_tonumberx(L, index, nil)
  }

  func bool(at index: Int32) throws -> Bool {
    guard lua_type(L, index) == LUA_TBOOLEAN else { throw mismatch("boolean", at: index) }
    return lua_toboolean(L, index) != 0
  }

  func data(at index: Int32) throws -> Data {
    guard lua_type(L, index) == LUA_TSTRING else { throw mismatch("string", at: index) }
    return stack.withBytes(at: index) { Data($0) }
  }

  func url(at index: Int32) throws -> URL {
    let text = try string(at: index)
    guard let url = URL(string: text) else {
      throw LuaError.conversion(path: "", message: "\(LuaValue(text)) is not a URL")
    }
    return url
  }

  func uuid(at index: Int32) throws -> UUID {
    let text = try string(at: index)
    guard let uuid = UUID(uuidString: text) else {
      throw LuaError.conversion(path: "", message: "\(LuaValue(text)) is not a UUID")
    }
    return uuid
  }

  /// Any error thrown while decoding (by our code or a type's own `init(from:)`), as a
  /// `LuaError`.
  static func luaError(_ error: any Error) -> LuaError {
    if let error = error as? LuaError { return error }
    guard let error = error as? DecodingError else {
      return .conversion(path: "", message: "\(error)")
    }
    switch error {
    case let .typeMismatch(type, context):
      return .conversion(path: "", message: "expected \(type): \(context.debugDescription)")
    case let .valueNotFound(type, context):
      return .conversion(path: "", message: "expected \(type): \(context.debugDescription)")
    case let .keyNotFound(key, _):
      return .conversion(path: LuaPath.component(key: key.stringValue), message: "missing")
    case let .dataCorrupted(context):
      return .conversion(path: "", message: context.debugDescription)
    @unknown default:
      return .conversion(path: "", message: "\(error)")
    }
  }
}
