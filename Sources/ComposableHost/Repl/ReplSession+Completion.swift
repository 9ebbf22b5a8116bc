import ComposableLua
import Foundation
import LuaKit

/// Tab completion: commands at the start of a line, action types where an action goes, and
/// state paths after `:state ` and in expressions (`state.todos[1].ti`).
extension ReplSession {
  /// The words that complete `word`, the word under the cursor in `line`.
  public nonisolated func completions(of word: String, in line: String) -> [String] {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    if trimmed.hasPrefix(":state ") {
      return statePaths(startingWith: word)
    }
    if trimmed.hasPrefix("=") {
      guard word.hasPrefix("state.") || word.hasPrefix("state[") else {
        return "state".hasPrefix(word) ? ["state", "env"].filter { $0.hasPrefix(word) } : []
      }
      let rest = String(word.dropFirst("state".count))
      return statePaths(startingWith: String(rest.drop { $0 == "." })).map {
        $0.hasPrefix("[") ? "state" + $0 : "state." + $0
      }
    }
    if trimmed.hasPrefix(":") || (trimmed.isEmpty && word.hasPrefix(":")) {
      return Self.commands.map { String($0.name.split(separator: " ")[0]) }
        .filter { $0.hasPrefix(word) && $0.hasPrefix(":") }
    }
    let addresses = addressCompletions(of: word, in: line)
    guard !addresses.isEmpty else { return known.value.completions(of: word) }
    // A stack's or a presentation's name alone is no action one types (`path` needs an id and
    // an action): its addresses stand for it, so Tab goes on to `path#`.
    let names = ReplNavigation.names(in: feature)
    return addresses
      + known.value.completions(of: word).filter {
        !names.stacks.contains($0) && !names.presents.contains($0)
      }
  }

  /// The addresses of stacks' screens and presented destinations that complete `word` after
  /// the address typed before it (`path#` completes to `path#1`, `path#2`; `path#1 d` to
  /// `path#1`'s `destination`).
  nonisolated func addressCompletions(of word: String, in line: String) -> [String] {
    let before = line.hasSuffix(word) ? String(line.dropLast(word.count)) : line
    let typed = before.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    var found: [String] = []
    var seen: Set<String> = []
    for place in ReplNavigation.places(in: feature) {
      for address in place.isStack ? place.screens : [place.address] {
        var steps = address.split(separator: " ").map(String.init)
        guard let last = steps.popLast(), steps.joined(separator: " ") == typed,
          last.hasPrefix(word), seen.insert(last).inserted
        else { continue }
        found.append(last)
      }
    }
    return found
  }

  /// Paths into the state that start with `prefix`: the fields of the table the part before
  /// the last `.` or `[` names.
  nonisolated func statePaths(startingWith prefix: String) -> [String] {
    let split = prefix.lastIndex { $0 == "." || $0 == "[" }
    let base = split.map { String(prefix[..<$0]) } ?? ""
    let table: LuaValue
    if base.isEmpty {
      guard let state = try? feature.state() else { return [] }
      table = state
    } else {
      let expression = "state" + (base.hasPrefix("[") ? base : "." + base)
      guard let value = try? feature.evaluate(expression).first else { return [] }
      table = value
    }
    guard case let .table(fields) = table else { return [] }
    var paths: [String] = []
    for (key, _) in fields.sortedEntries.prefix(200) {
      let component = LuaValue.pathComponent(key, atRoot: base.isEmpty)
      let path = base + component
      if path.hasPrefix(prefix) { paths.append(path) }
    }
    return paths
  }
}
