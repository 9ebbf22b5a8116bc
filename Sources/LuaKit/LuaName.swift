import CLua
import LuaSupport
import Synchronization

/// A string Swift pushes into Lua again and again, such as a field's name or an action's type.
/// Each VM interns it once and keeps it; after that a push reads it from the VM's registry,
/// with no hashing of its bytes and no lookup in Lua's string table.
///
/// Make each name once, as a constant (`static let id: LuaName = "id"`): making one takes a
/// process-wide lock. Equal strings share one index and one copy of their bytes, kept for the
/// life of the process (names are a program's vocabulary, not its data).
public struct LuaName: Hashable, @unchecked Sendable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  /// The name's text.
  public let string: String
  /// Its index in each VM's table of interned names.
  let index: Int32
  /// Its bytes, for the first push in each VM: immutable and never freed (hence Sendable), so a
  /// push touches no reference count.
  let bytes: UnsafeBufferPointer<CChar>

  /// Interns `string`: the first name made of it copies its bytes and gives it an index, both kept
  /// for the life of the process; a later one finds them, under the same lock.
  ///
  /// ```swift
  /// enum Field {
  ///   static let title = LuaName("title")
  /// }
  /// ```
  public init(_ string: String) {
    self.string = string
    (index, bytes) = LuaName.interned.withLock { interned in
      if let known = interned[string] { return known }
      let copy = UnsafeMutableBufferPointer<CChar>.allocate(capacity: string.utf8.count)
      _ = copy.initialize(from: string.utf8.lazy.map { CChar(bitPattern: $0) })
      let made = (Int32(interned.count), UnsafeBufferPointer(copy))
      interned[string] = made
      return made
    }
  }

  /// A name written as a literal, interned as `init(_:)` interns it.
  ///
  /// ```swift
  /// let done: LuaName = "done"
  /// ```
  public init(stringLiteral string: String) { self.init(string) }

  public var description: String { string }

  /// Whether two names are the same string, compared by their interned index, not their bytes.
  ///
  /// ```swift
  /// LuaName("id") == "id"  // true
  /// ```
  public static func == (lhs: LuaName, rhs: LuaName) -> Bool { lhs.index == rhs.index }
  public func hash(into hasher: inout Hasher) { hasher.combine(index) }

  private static let interned = Mutex<[String: (Int32, UnsafeBufferPointer<CChar>)]>([:])
}

extension LuaStack {
  /// Pushes `name`, interned in this VM.
  func push(_ name: LuaName) throws(LuaError) {
    guard lk_push_name(L, name.index, name.bytes.baseAddress, name.bytes.count) != 0 else {
      throw .memoryLimit(limit: 0)
    }
  }
}
