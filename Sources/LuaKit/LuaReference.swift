import Foundation
import Synchronization

/// A handle on a value that lives in a Lua VM: a function, a table kept in Lua, a coroutine.
///
/// The handle holds a slot in the VM's registry. Dropping the last copy of the handle gives the
/// slot back: the slot number goes onto the VM's release queue (from any thread, hence the
/// lock) and the VM frees it the next time it is entered, or all at once when it closes.
public final class LuaReference: Hashable, Sendable, CustomStringConvertible {
  let slot: Int32
  let owner: LuaReleaseQueue
  /// Lua's identity of the value (`lua_topointer`), so two handles on one table compare equal.
  let identity: UInt
  /// `function`, `table`, `userdata` or `thread`.
  public let typeName: String

  init(slot: Int32, owner: LuaReleaseQueue, identity: UInt, typeName: String) {
    self.slot = slot
    self.owner = owner
    self.identity = identity
    self.typeName = typeName
  }

  deinit { owner.release(slot) }

  /// Whether this is the null light userdata (`json.null`, what JSON's null decodes to): a
  /// pointer value, not an object of its VM, so the same value in every VM. A state holding it
  /// is compared with and pushed into another VM (a test's, expecting it) as itself; every other
  /// value lives in its own VM only.
  public var isNull: Bool { identity == 0 && typeName == "userdata" }

  /// Whether two handles are on the same Lua value in the same VM, whatever registry slots they
  /// hold (the null light userdata is one value in every VM).
  ///
  /// ```swift
  /// let f = try vm.load("return 1", chunkName: "f")
  /// try vm.setGlobal("f", .function(f))
  /// if case let .function(g) = try vm.global("f") { print(g == f) }  // true
  /// ```
  public static func == (lhs: LuaReference, rhs: LuaReference) -> Bool {
    lhs.identity == rhs.identity && (lhs.owner === rhs.owner || lhs.isNull && rhs.isNull)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(identity)
  }

  /// What a VM says of this reference, made by another: its kind, not its address (another
  /// each run, which made the same refusal read otherwise from one run to the next).
  var ofAnotherVM: String { "a \(typeName) of another Lua VM cannot be used here" }

  public var description: String {
    isNull ? "json.null" : "\(typeName): 0x\(String(identity, radix: 16))"
  }
}

/// Registry slots whose handles were dropped, waiting for their VM to free them. The slots sit
/// behind a pthread lock, which ThreadSanitizer sees (it does not see the futex calls the
/// standard library's `Mutex` is made of).
final class LuaReleaseQueue: @unchecked Sendable {
  private let lock = NSLock()
  private var slots: [Int32] = []  // under `lock`
  private let hasPending = Atomic<Bool>(false)

  func release(_ slot: Int32) {
    lock.withLock { slots.append(slot) }
    hasPending.store(true, ordering: .releasing)
  }

  /// The slots to free now; cheap when there are none (one atomic load).
  func drain() -> [Int32] {
    guard hasPending.load(ordering: .acquiring) else { return [] }
    return lock.withLock {
      hasPending.store(false, ordering: .relaxed)
      defer { slots.removeAll(keepingCapacity: true) }
      return slots
    }
  }
}

extension LuaValue {
  /// JSON's null (`json.null` in Lua, what decoding JSON's null gives: the null light userdata),
  /// made in Swift: equal to the one any VM gives, and pushed into a VM as itself. For a Swift
  /// test's expected state, as `:test NAME.swift` writes it.
  ///
  /// ```swift
  /// let expected: LuaValue = ["name": "Ann", "age": .jsonNull]
  /// ```
  public static let jsonNull = LuaValue.other(
    LuaReference(slot: -2, owner: LuaReleaseQueue(), identity: 0, typeName: "userdata"))
}
