import ComposableLua
import Foundation
import LuaKit

/// Where a REPL session is in its feature's navigation: the stacks and presented destinations
/// the feature declared (`composable.stack`, `composable.presents`), read from Lua
/// (`composable.navigation`), each under its address: the action names and screen ids that
/// reach it (`path#2 destination`). The REPL prints what changed after each action, lists it
/// all on `:screens`, completes addresses, and reads `path#2 save` as the action for that
/// screen (as `composable run` does: `action(from:of:read:)`).
public final class ReplNavigation: @unchecked Sendable {
  /// One stack or presented destination: how to address it, and what it shows.
  struct Place: Equatable {
    let address: String
    let line: String
    /// The addresses of its screens, for a stack (`path#1`, `path#2`).
    let screens: [String]
    let isStack: Bool
  }

  /// The action names declared: stacks (addressed with `#id`) and presentations.
  struct Names: Equatable {
    var stacks: Set<String> = []
    var presents: Set<String> = []
    var isEmpty: Bool { stacks.isEmpty && presents.isEmpty }
  }

  private let lock = NSLock()
  private var shown: [Place] = []  // under `lock`

  /// The places in the feature's state now, outermost first; none when the feature declares no
  /// navigation (or its state cannot be read).
  static func places(in feature: LuaFeature) -> [Place] {
    guard let found = try? feature.evaluate(#"require("composable").navigation(state)"#).first,
      case let .table(entries) = found
    else { return [] }
    return entries.sequence.compactMap(place)
  }

  private static func place(_ entry: LuaValue) -> Place? {
    guard let address = entry.address.stringValue else { return nil }
    if case let .table(stack) = entry.stack {
      let screens = stack.sequence.map { screen in
        (id: "\(screen.id)", kind: screen.screen.readableString ?? "\(screen.screen)")
      }
      var shown = screens.map { "#\($0.id) \($0.kind)" }
      if let hidden = entry.hidden.intValue, hidden > 0 {
        let after = min(entry.hidden_after.intValue ?? 0, shown.count)
        shown.insert("… \(hidden) more", at: after)
      }
      let listed = shown.isEmpty ? "no screens" : shown.joined(separator: " › ")
      return Place(
        address: address, line: oneLine("\(address): \(listed)"),
        screens: screens.map { "\(address)#\($0.id)" }, isStack: true)
    }
    var line = "\(address): \(entry.screen.readableString ?? "?")"
    if let title = entry.title.readableString { line += " \(LuaValue(title))" }
    if case let .table(buttons) = entry.buttons, !buttons.sequence.isEmpty {
      line +=
        " — "
        + buttons.sequence.map { button in
          let label = button.label.readableString ?? "?"
          // As the person would type it after the address: a word bare.
          let action =
            button.action.stringValue.flatMap { $0.isLuaWord ? $0 : nil } ?? "\(button.action)"
          return button.action.isNil ? label : "\(label) → \(action)"
        }.joined(separator: ", ")
    }
    return Place(address: address, line: oneLine(line), screens: [], isStack: false)
  }

  /// The most characters a line about a place takes: the rest is said as a count.
  static let maximumLineLength = 300

  /// `text` as one line a terminal shows as it is: control characters (escape sequences, line
  /// breaks: a label from the network may hold anything) written out, and capped.
  static func oneLine(_ text: String) -> String {
    var line = text.terminalSafe.replacingOccurrences(of: "\r", with: "\\r")
      .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t")
    // Counted in bytes (as a terminal is sent them): a character may join many scalars. Not
    // cut for fewer bytes than the note of the cut would take.
    let past = line.utf8.count - maximumLineLength
    if past > "… (\(past) more bytes)".utf8.count {
      // At the start of the UTF-8 sequence the limit splits (decoded, half of one is U+FFFD).
      let bytes = Array(line.utf8)
      var end = maximumLineLength
      while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
      line = String(decoding: bytes[..<end], as: UTF8.self) + "… (\(bytes.count - end) more bytes)"
    }
    return line
  }

  /// The declared names, for reading an addressed action.
  static func names(in feature: LuaFeature) -> Names {
    guard
      let found = try? feature.evaluate(#"require("composable").declared_navigation()"#)
        .first
    else { return Names() }
    func strings(_ value: LuaValue) -> Set<String> {
      Set(value.tableValue?.sequence.compactMap(\.stringValue) ?? [])
    }
    return Names(stacks: strings(found.stacks), presents: strings(found.presents))
  }

  /// The lines to print for what changed since the last call: a place new or changed, and a
  /// presented destination gone ("closed"); its screens' places go with a popped screen.
  func changes(in feature: LuaFeature) -> [String] {
    let now = Self.places(in: feature)
    let before = lock.withLock {
      defer { shown = now }
      return shown
    }
    guard now != before else { return [] }
    let addressesNow = Set(now.map(\.address))
    let screensNow = Set(now.flatMap(\.screens))
    var lines: [String] = []
    for place in before where !addressesNow.contains(place.address) && !place.isStack {
      // Presented by a screen popped meanwhile: the stack's line says so.
      let ownerSteps = place.address.split(separator: " ").dropLast()
      let owner = ownerSteps.joined(separator: " ")
      if ownerSteps.last?.contains("#") == true, !screensNow.contains(owner) { continue }
      lines.append(Self.oneLine("\(place.address): closed"))
    }
    let beforeLines = Set(before.map(\.line))
    for place in now where !beforeLines.contains(place.line) { lines.append(place.line) }
    return lines
  }

  /// Forgets what was shown, so the next `changes` lists every place (after a jump in time).
  func reset(to feature: LuaFeature) {
    let now = Self.places(in: feature)
    lock.withLock { shown = now }
  }
}

extension ReplNavigation {
  /// One step of an address: a stack's action name and a screen's id, or a presentation's
  /// action name.
  struct Step: Equatable {
    let name: String
    let id: Int?
  }

  /// The address a typed line starts with (`path#2 destination save`: the screen 2 of `path`,
  /// then its `destination`), and the rest of the line, the action. A line that starts with no
  /// declared name is all action (a bare word or a table, as before); `names` is read only for
  /// a line that could start with an address.
  static func address(of line: [UInt8], names: () -> Names) -> ([Step], [UInt8]) {
    var steps: [Step] = []
    var rest = line[...]
    var known: Names?
    while true {
      let start = rest.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
      let word = start.prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
      let after = start.dropFirst(word.count)
      // An address step is followed by more: the action at least.
      guard !word.isEmpty, after.contains(where: { $0 > 32 }),
        let text = String(validating: word, as: UTF8.self),
        let step = step(text)
      else { break }
      if known == nil { known = names() }
      let declared =
        step.id == nil ? known!.presents.contains(step.name) : known!.stacks.contains(step.name)
      guard declared else { break }
      steps.append(step)
      rest = after
    }
    return (steps, steps.isEmpty ? line : Array(rest))
  }

  /// What is wrong with a line that starts as an address does (`pat#1 edit`, `path#x edit`,
  /// `path#1` alone) and could not be read: nil for a line that does not look like one.
  static func addressProblem(in line: [UInt8], names: Names) -> String? {
    let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
    guard let first = words.first, first.contains("#") else { return nil }
    let name = String(first.prefix { $0 != "#" })
    guard name.isLuaWord else { return nil }
    let stacks = names.stacks.sorted()
    let example = stacks.first.map { "\($0)#1 <action>" } ?? ""
    guard names.stacks.contains(name) else {
      if stacks.isEmpty { return "\(name) is no stack: this feature declares none" }
      return "\(name) is no stack of this feature (its stacks: "
        + stacks.joined(separator: ", ") + "); a screen's address is its stack and id: \(example)"
    }
    guard step(String(first)) != nil else {
      return "\(first): a screen's id after # is an integer (:screens lists them): \(example)"
    }
    guard words.count > 1 else {
      return "\(first) is an address: the action goes after it (\(first) <action>)"
    }
    return nil
  }

  /// `path#2` or `destination`: a Lua name, and an integer id after `#`.
  private static func step(_ word: String) -> Step? {
    let parts = word.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
    guard String(parts[0]).isLuaWord else { return nil }
    if parts.count == 1 { return Step(name: String(parts[0]), id: nil) }
    // Digits only, as `:screens` writes an id: not `+2`, not `02`.
    let digits = parts[1]
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
      digits == "0" || digits.first != "0",
      let id = Int(digits)
    else { return nil }
    return Step(name: String(parts[0]), id: id)
  }

  /// What is wrong with a typed line that starts as an address does and could not be read.
  public struct AddressProblem: Error, CustomStringConvertible {
    /// What is wrong, and how to write it (`path#x: a screen's id after # is an integer ...`).
    public let description: String
  }

  /// A typed line read as an action, as the REPL and `composable run` read one: `read` reads
  /// it, or what follows an address at its start (`path#2 destination save`: screen 2 of the
  /// stack `path`, then its presented `destination`), which wraps the action for that place.
  /// Throws what `read` throws, or an `AddressProblem` for a line that looks like an address
  /// but is none (`pat#1 edit`, `path#1` alone).
  public static func action(
    from line: [UInt8], of feature: LuaFeature, read: ([UInt8]) throws -> LuaValue
  ) throws -> LuaValue {
    let (addresses, typed) = address(of: line, names: { names(in: feature) })
    do {
      return addressed(try read(typed), to: addresses)
    } catch {
      if let problem = addressProblem(in: line, names: names(in: feature)) {
        throw AddressProblem(description: problem)
      }
      throw error
    }
  }

  /// `action` wrapped for the address: `{ type = "path", id = 2, action = { type =
  /// "destination", action = <action> } }`.
  static func addressed(_ action: LuaValue, to steps: [Step]) -> LuaValue {
    var action = action
    for step in steps.reversed() {
      var wrapper: LuaValue = ["type": .string(LuaString(step.name)), "action": action]
      if let id = step.id { wrapper["id"] = .integer(id) }
      action = wrapper
    }
    return action
  }
}
