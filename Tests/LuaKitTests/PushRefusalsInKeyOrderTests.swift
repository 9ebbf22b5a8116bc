import LuaKit
import Testing

/// A value pushed from Swift into Lua (an action, a state the host sets) that cannot go at
/// several places is refused at the first in key order, whatever the order of its dictionaries.
/// Swift seeds each dictionary's order (per process, and per storage), so the place named was
/// one or another from one run to the next, as Lua's hash order made the snapshots' (see
/// `RefusedPlacesInKeyOrderTests`).
@Suite struct PushRefusalsInKeyOrderTests {
  static let names = [
    "kilo", "delta", "beta", "juliet", "alpha", "echo", "golf", "hotel", "india", "foxtrot",
    "charlie", "lima",
  ]

  /// A chain of `levels` tables.
  static func chain(_ levels: Int) -> LuaValue {
    var value: LuaValue = ["end": true]
    for _ in 1..<levels { value = ["n": value] }
    return value
  }

  /// The table of `fields`, built from its names in an order `seed` shuffles, with room for
  /// `spare` more: equal tables whose dictionaries are laid out apart.
  static func table(_ fields: [(String, LuaValue)], seed: Int, spare: Int) -> LuaValue {
    var order = fields
    var state = UInt64(seed) &* 6_364_136_223_846_793_005 &+ 1
    for index in order.indices.reversed() {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      order.swapAt(index, Int((state >> 33) % UInt64(index + 1)))
    }
    var entries: [LuaValue: LuaValue] = Dictionary(minimumCapacity: fields.count + spare)
    for (name, value) in order { entries[.string(LuaString(name))] = value }
    return .table(LuaTable(entries: entries))
  }

  static func messages(_ make: (Int) -> LuaValue) throws -> Set<String> {
    let vm = try LuaVM()
    var messages: Set<String> = []
    for seed in 0..<40 {
      do {
        _ = try vm.reference(to: make(seed))
        messages.insert("no error")
      } catch {
        messages.insert("\(error)")
      }
    }
    return messages
  }

  @Test func tooDeepAtSeveralPlacesNamesTheFirst() throws {
    let messages = try Self.messages { seed in
      Self.table(Self.names.map { ($0, Self.chain(201)) }, seed: seed, spare: seed % 7 * 5)
    }
    #expect(messages.count == 1, "\(messages)")
    #expect(messages.first?.hasPrefix("value.alpha.n.n") == true, "\(messages)")
  }

  /// Several kinds of refusal (a function of another VM, too deep): the first place in key
  /// order, whichever kind it is.
  @Test func differentRefusalsNameTheFirstPlace() throws {
    let other = try LuaVM()
    let foreign = try other.evaluate("return function() end")[0]
    let messages = try Self.messages { seed in
      Self.table(
        Self.names.map { name in
          (name, name == "charlie" ? ["inner": foreign] : name.count == 4 ? Self.chain(205) : 1)
        }, seed: seed, spare: seed % 5 * 3)
    }
    #expect(messages.count == 1, "\(messages)")
    #expect(
      messages.first?.hasPrefix("value.beta.n.n") == true
        && messages.first?.hasSuffix("nested more than 200 levels deep") == true, "\(messages)")
  }

  struct Holder: Encodable {
    var names: [String: UInt64]
    var numbers: [Int: UInt64]
  }

  /// Encoded from a `Codable` value: its dictionaries' entries too, by string and by integer
  /// key. (A struct's fields go in their declared order.)
  @Test func anEncodedDictionaryNamesTheFirstKey() throws {
    let vm = try LuaVM()
    var messages: Set<String> = [], numbers: Set<String> = []
    for seed in 0..<40 {
      var names: [String: UInt64] = Dictionary(minimumCapacity: 12 + seed % 7 * 5)
      var keys: [Int: UInt64] = Dictionary(minimumCapacity: 12 + seed % 5 * 9)
      for (offset, name) in Self.names.enumerated() {
        names[name] = offset % 2 == 0 || name == "alpha" ? .max - UInt64(offset) : 1
        keys[(offset * 7 + seed) % 12 + 1] = offset % 3 == 0 ? 2 : .max
      }
      keys[1] = .max - 1
      messages.insert(try Self.encodingError(Holder(names: names, numbers: [:]), in: vm))
      numbers.insert(try Self.encodingError(Holder(names: [:], numbers: keys), in: vm))
    }
    #expect(
      messages == ["value.names.alpha: 18446744073709551611 does not fit in a Lua integer"],
      "\(messages)")
    #expect(
      numbers == ["value.numbers[1]: 18446744073709551614 does not fit in a Lua integer"],
      "\(numbers)")
  }

  /// What encoding `value` threw, or "no error".
  static func encodingError(_ value: some Encodable, in vm: LuaVM) throws -> String {
    do {
      _ = try LuaEncoder().encode(value, in: vm)
      return "no error"
    } catch {
      return "\(error)"
    }
  }
}
