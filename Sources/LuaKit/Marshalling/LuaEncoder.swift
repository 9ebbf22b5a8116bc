import CLua
import Foundation
import LuaSupport

/// Encodes `Encodable` Swift values straight onto the Lua stack: no JSON, no strings between.
///
/// The rules (the decoder follows the same ones back):
/// - `Int` (and the other integer types) -> integer; `Double`/`Float` -> float; `Bool` ->
///   boolean; `String` -> string. A `UInt64` above `Int64.max` is an error.
/// - `Optional.none` -> absent: the field is simply not set. `nil` inside an array is an
///   error, because Lua arrays have no holes.
/// - Arrays -> tables with keys 1...n, marked with the VM's array metatable so an empty array
///   stays an array; dictionaries with `String` keys -> tables with string keys, and with
///   `Int` keys -> tables with integer keys.
/// - Structs -> tables with a field per property.
/// - `Date` -> float seconds since 1970; `Data` -> string of its bytes; `URL` -> its absolute
///   string; `UUID` -> its uppercase `uuidString`.
/// - Enums with `Codable` synthesized -> a tagged table: `{ type = "case_name", ... }` with
///   labelled associated values as fields; a single unlabelled value is `value`, several are
///   `_1`, `_2`, ... (Lua counts from 1). Enums with raw values encode as their raw value.
/// - `LuaValue` -> itself.
/// - A class graph with a cycle, or nesting deeper than `maximumDepth`, is an error.
///
/// Errors name the path of the field: `state.todos[3].title: ...`; of several, the first in
/// declared order for a struct's fields and in key order for the entries of a dictionary keyed by
/// strings or integers (a dictionary keyed by another type goes as `Codable` writes it, in the
/// dictionary's own order).
public struct LuaEncoder {
  /// Deeper nesting than this is refused (it is almost always a cycle through classes).
  public var maximumDepth = LuaValue.maximumDepth

  /// The field of a tagged table that names the enum case. The decoder reads the same field.
  public static let enumCaseField = "type"

  /// An encoder that refuses nesting deeper than `LuaValue.maximumDepth`.
  ///
  /// ```swift
  /// struct Counter: Encodable { var count: Int }
  /// let state = try LuaEncoder().encode(Counter(count: 3), in: vm)
  /// try vm.value(of: state)  // ["count": 3]
  /// ```
  public init() {}

  /// Encodes `value` into `vm` and returns a handle on the Lua value.
  public func encode<Value: Encodable>(
    _ value: Value, in vm: LuaVM, rootName: String = "value"
  ) throws(LuaError) -> LuaReference {
    vm.drainReleases()
    return try vm.stack.guarded { () throws(LuaError) -> LuaReference in
      try push(value, onto: vm.stack, vm: vm, rootName: rootName)
      return vm.makeReference(at: -1, vm.L)
    }
  }

  /// Pushes exactly one value, or throws with the stack as it was.
  func push<Value: Encodable>(
    _ value: Value, onto stack: LuaStack, vm: LuaVM, rootName: String
  ) throws(LuaError) {
    let base = stack.top
    let encoding = LuaEncoding(stack: stack, vm: vm, maximumDepth: maximumDepth)
    do {
      try encoding.push(value)
    } catch {
      stack.setTop(base)
      throw Self.refusalInKeyOrder(
        LuaEncoding.luaError(error), of: value, onto: stack, vm: vm, maximumDepth: maximumDepth
      ).rooted(at: rootName)
    }
    stack.setTop(base + 1)
  }

  /// A refused value encoded again with each dictionary's entries in key order, so that the
  /// error names the first bad place in that order: a dictionary's own order is seeded per
  /// process (and per storage), and a value refused at two places was refused at one or the
  /// other from one run to the next. (A struct's fields go in their declared order both times.)
  /// Only a refusal pays for it.
  @inline(never)
  private static func refusalInKeyOrder<Value: Encodable>(
    _ error: LuaError, of value: Value, onto stack: LuaStack, vm: LuaVM, maximumDepth: Int
  ) -> LuaError {
    guard case .conversion = error else { return error }
    let base = stack.top
    defer { stack.setTop(base) }
    let encoding = LuaEncoding(stack: stack, vm: vm, maximumDepth: maximumDepth)
    encoding.inKeyOrder = true
    do {
      try encoding.push(value)
    } catch {
      return LuaEncoding.luaError(error)
    }
    return error  // no refusal in key order: cannot be, but the first stands
  }
}

/// The state of one encoding: the stack it writes and the classes on the current path.
final class LuaEncoding {
  let stack: LuaStack
  let vm: LuaVM
  let maximumDepth: Int
  /// How many values are being encoded inside one another (each `encode(to:)` under way), for
  /// the encoders kept a level (`borrowEncoder`).
  var depth = 0
  /// The tables made around the value being pushed (its own is one more), counted as a snapshot
  /// counts them: an optional, or a value that is one scalar, makes none; an array or a
  /// dictionary makes one.
  var tableDepth = 0
  /// A nested container's table made deeper than `maximumDepth` (the container cannot refuse
  /// when made): refused when its value is done.
  var nestedTooDeep = false
  var objects: [ObjectIdentifier] = []
  /// Each dictionary's entries pushed in key order (a refused value encoded again).
  var inKeyOrder = false
  /// One encoder per nesting depth, reused (see `LuaDecoding`'s decoders).
  private var encoders: [LuaValueEncoder] = []

  private func borrowEncoder(base: Int32, facts: TypeFacts) -> LuaValueEncoder {
    while encoders.count < depth {
      encoders.append(LuaValueEncoder(encoding: self, base: 0, isEnum: false))
    }
    let encoder = encoders[depth - 1]
    encoder.base = base
    encoder.isEnum = facts.kind == .enum
    encoder.fieldCount = facts.fieldCount
    return encoder
  }

  init(stack: LuaStack, vm: LuaVM, maximumDepth: Int) {
    self.stack = stack
    self.vm = vm
    self.maximumDepth = maximumDepth
  }

  var L: OpaquePointer { stack.L }

  /// Pushes one value for `value`.
  func push<Value: Encodable>(_ value: Value) throws {
    // Scalars first, by comparing metatypes (cheaper than casts): they are most of any state.
    let type = Value.self
    if type == String.self {
      withUnsafePointer(to: value) { pointer in
        pointer.withMemoryRebound(to: String.self, capacity: 1) { stack.push($0.pointee) }
      }
    } else if type == Int.self {
      lua_pushinteger(L, lua_Integer(unsafeBitCast(value, to: Int.self)))
    } else if type == Bool.self {
      lua_pushboolean(L, unsafeBitCast(value, to: Bool.self) ? 1 : 0)
    } else if type == Double.self {
      lua_pushnumber(L, unsafeBitCast(value, to: Double.self))
    } else if type == Date.self {
      lua_pushnumber(L, unsafeBitCast(value, to: Date.self).timeIntervalSince1970)
    } else if type == Data.self {
      unsafeBitCast(value, to: Data.self).withUnsafeBytes { stack.push(bytes: $0) }
    } else if type == URL.self {
      stack.push(unsafeBitCast(value, to: URL.self).absoluteString)
    } else if type == UUID.self {
      stack.push(unsafeBitCast(value, to: UUID.self).uuidString)
    } else if type == LuaValue.self {
      let height = try stack.pushTable(unsafeBitCast(value, to: LuaValue.self), in: vm)
      if tableDepth + height > maximumDepth {
        stack.setTop(stack.top - 1)
        throw tooDeep
      }
    } else {
      let facts = facts(for: type)
      if let direct = facts.direct {
        try check(level: tableDepth + 1)  // an array or a dictionary: one table
        try inside(level: tableDepth + 1) {
          try withUnsafePointer(to: value) { try direct.push(UnsafeRawPointer($0), into: self) }
        }
      } else {
        try pushComposite(value, facts: facts)
      }
    }
  }

  /// What the encoding needs to know about a type that is not a scalar.
  struct TypeFacts {
    var direct: (any LuaDirectEncodable.Type)?
    var kind: LuaTypeKind
    /// Fields of the last value of the type, to size the next one's table; 0 until known.
    var fieldCount: Int32 = 0
  }

  /// A state has few distinct types: a short list searched from the most recent beats hashing.
  private var knownTypes: [(type: ObjectIdentifier, facts: TypeFacts)] = []

  private func facts(for type: Any.Type) -> TypeFacts {
    let id = ObjectIdentifier(type)
    for entry in knownTypes.reversed() where entry.type == id { return entry.facts }
    let facts = TypeFacts(direct: type as? any LuaDirectEncodable.Type, kind: LuaTypeKind(type))
    knownTypes.append((id, facts))
    return facts
  }

  private func recordFieldCount(_ count: Int32, for type: Any.Type) {
    let id = ObjectIdentifier(type)
    if let index = knownTypes.lastIndex(where: { $0.type == id }) {
      knownTypes[index].facts.fieldCount = count
    }
  }

  /// The refusal of a table deeper than `maximumDepth`.
  var tooDeep: LuaError {
    .conversion(path: "", message: "nested more than \(maximumDepth) levels deep")
  }

  /// Refuses a table at `level` (1: the value encoded) deeper than `maximumDepth`.
  @inline(__always)
  func check(level: Int) throws {
    if level > maximumDepth { throw tooDeep }
  }

  /// `body`, pushing what goes inside a table at `level`.
  @inline(__always)
  func inside<Result>(level: Int, _ body: () throws -> Result) rethrows -> Result {
    let around = tableDepth
    tableDepth = level
    defer { tableDepth = around }
    return try body()
  }

  /// A nested container's table at `level`: noted if it is too deep (see `nestedTooDeep`).
  func noteNested(level: Int) {
    if level > maximumDepth { nestedTooDeep = true }
  }

  /// A new array table on top of the stack; returns its index.
  func beginArray(count: Int) throws -> Int32 {
    try reserveForNesting()
    lua_createtable(L, Int32(clamping: count), 0)
    vm.setArrayMarker(on: -1, L)
    return stack.top
  }

  func pushElement<Element: Encodable>(_ element: Element, at position: Int, of table: Int32) throws
  {
    do { try push(element) } catch {
      throw LuaEncoding.luaError(error).under(LuaPath.component(index: position))
    }
    if lua_type(L, -1) == LUA_TNIL {
      throw LuaError.conversion(
        path: LuaPath.component(index: position),
        message: "nil cannot be an element of an array: Lua arrays have no holes")
    }
    lua_rawseti(L, table, lua_Integer(position))
  }

  /// An array of scalars, each pushed by `push`. Inlined so that each scalar type gets a loop
  /// of its own.
  @inline(__always)
  func pushScalars<Scalar>(_ array: [Scalar], _ push: (Scalar) -> Void) throws {
    let table = try beginArray(count: array.count)
    var index = 0
    while index < array.count {
      push(array[index])
      index += 1
      lua_rawseti(L, table, lua_Integer(index))
    }
  }

  /// A new map table on top of the stack; returns its index.
  func beginMap(count: Int) throws -> Int32 {
    try reserveForNesting()
    lua_createtable(L, 0, Int32(clamping: count))
    return stack.top
  }

  /// `table[key] = value`: an integer key stays an integer.
  func pushEntry<Key: LuaDirectKey, Value: Encodable>(
    _ key: Key, _ value: Value, of table: Int32
  ) throws {
    key.push(into: self)
    do { try push(value) } catch {
      throw LuaEncoding.luaError(error).under(key.pathComponent)
    }
    lua_rawset(L, table)
  }

  /// Each level of nesting pushes a few slots (its table, a key, a value); Lua guarantees
  /// only a handful, so every composite asks for more before it starts.
  func reserveForNesting() throws {
    guard stack.reserve(8) else { throw LuaError.conversion(path: "", message: "nesting too deep") }
  }

  private func pushComposite<Value: Encodable>(_ value: Value, facts: TypeFacts) throws {
    try reserveForNesting()
    depth += 1
    defer { depth -= 1 }
    // Values that make no table (one optional in another, a value encoded as one value) are
    // bounded too: each is a call of Swift's, on a stack that is not unbounded.
    if depth > 4 * max(maximumDepth, LuaValue.maximumDepth) {
      throw LuaError.conversion(path: "", message: "nested more than \(depth - 1) values deep")
    }
    let isObject = facts.kind == .class
    if isObject {
      let identity = ObjectIdentifier(value as AnyObject)
      if objects.contains(identity) {
        throw LuaError.conversion(path: "", message: "cycle: the object contains itself")
      }
      objects.append(identity)
    }
    defer { if isObject { objects.removeLast() } }
    let base = stack.top
    let encoder = borrowEncoder(base: base, facts: facts)
    encoder.level = tableDepth + 1
    try value.encode(to: encoder)
    if stack.top == base { lua_createtable(L, 0, 0) }  // encoded nothing: an empty table
    stack.setTop(base + 1)
    // Its table, if it made one, refused here when it holds no field that refused it.
    if lua_type(L, base + 1) == LUA_TTABLE { try check(level: tableDepth + 1) }
    if nestedTooDeep {
      nestedTooDeep = false
      throw tooDeep
    }
    if facts.fieldCount == 0 { recordFieldCount(countFields(at: base + 1), for: Value.self) }
  }

  /// The number of fields of the table at `index` (0 for anything else).
  private func countFields(at index: Int32) -> Int32 {
    guard lua_type(L, index) == LUA_TTABLE else { return 0 }
    var count: Int32 = 0
    lua_pushnil(L)
    while lk_next(L, index) != 0 {
      count += 1
      lua_settop(L, -2)
    }
    return count
  }

  func pushInteger<Integer: BinaryInteger>(_ value: Integer) throws {
    guard let integer = lua_Integer(exactly: value) else {
      throw LuaError.conversion(path: "", message: "\(value) does not fit in a Lua integer")
    }
    lua_pushinteger(L, integer)
  }

  /// Any error thrown while encoding, as a `LuaError`.
  static func luaError(_ error: any Error) -> LuaError {
    if let error = error as? LuaError { return error }
    if let error = error as? EncodingError, case let .invalidValue(_, context) = error {
      return .conversion(path: "", message: context.debugDescription)
    }
    return .conversion(path: "", message: "\(error)")
  }
}

/// The `Encoder` for one value; its result lands at `base + 1` on the stack.
final class LuaValueEncoder: Encoder {
  unowned(unsafe) let encoding: LuaEncoding
  var base: Int32
  var isEnum: Bool
  /// The expected number of fields, to size the table.
  var fieldCount: Int32 = 0
  /// How deep its table is, counting tables from the value encoded (1).
  var level = 1
  var codingPath: [any CodingKey] = []
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(encoding: LuaEncoding, base: Int32, isEnum: Bool) {
    self.encoding = encoding
    self.base = base
    self.isEnum = isEnum
  }

  /// The table at `base + 1`, made on first use (a second container shares it).
  private func table(array: Bool) -> Int32 {
    let slot = base + 1
    if encoding.stack.top < slot || lua_type(encoding.L, slot) != LUA_TTABLE {
      encoding.stack.setTop(base)
      lua_createtable(encoding.L, 0, array ? 0 : fieldCount)
      if array { encoding.vm.setArrayMarker(on: -1, encoding.L) }
    }
    return slot
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(
      LuaKeyedEncodingContainer<Key>(
        encoding: encoding, table: table(array: false), level: level, isEnumRoot: isEnum))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    LuaUnkeyedEncodingContainer(encoding: encoding, table: table(array: true), level: level)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    LuaSingleValueEncodingContainer(encoding: encoding, base: base)
  }
}

struct LuaSingleValueEncodingContainer: SingleValueEncodingContainer {
  let encoding: LuaEncoding
  let base: Int32
  var codingPath: [any CodingKey] { [] }

  private func replacing(_ push: () throws -> Void) rethrows {
    encoding.stack.setTop(base)
    try push()
  }

  mutating func encodeNil() throws { replacing { lua_pushnil(encoding.L) } }
  mutating func encode(_ value: Bool) throws {
    replacing { lua_pushboolean(encoding.L, value ? 1 : 0) }
  }
  mutating func encode(_ value: String) throws { replacing { encoding.stack.push(value) } }
  mutating func encode(_ value: Double) throws { replacing { lua_pushnumber(encoding.L, value) } }
  mutating func encode(_ value: Float) throws {
    replacing { lua_pushnumber(encoding.L, Double(value)) }
  }
  mutating func encode(_ value: Int) throws { try replacing { try encoding.pushInteger(value) } }
  mutating func encode(_ value: Int8) throws { try replacing { try encoding.pushInteger(value) } }
  mutating func encode(_ value: Int16) throws { try replacing { try encoding.pushInteger(value) } }
  mutating func encode(_ value: Int32) throws { try replacing { try encoding.pushInteger(value) } }
  mutating func encode(_ value: Int64) throws { try replacing { try encoding.pushInteger(value) } }
  mutating func encode(_ value: UInt) throws { try replacing { try encoding.pushInteger(value) } }
  mutating func encode(_ value: UInt8) throws { try replacing { try encoding.pushInteger(value) } }
  mutating func encode(_ value: UInt16) throws { try replacing { try encoding.pushInteger(value) } }
  mutating func encode(_ value: UInt32) throws { try replacing { try encoding.pushInteger(value) } }
  mutating func encode(_ value: UInt64) throws { try replacing { try encoding.pushInteger(value) } }
  mutating func encode<T: Encodable>(_ value: T) throws {
    try replacing { try encoding.push(value) }
  }
}
