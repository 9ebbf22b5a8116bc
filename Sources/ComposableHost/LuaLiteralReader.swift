import Foundation
import LuaKit

/// Reads what a person types as Lua: an action (a bare word, or a Lua table) or an `--env`
/// value, each evaluated in a sandbox of its own under small limits.
///
/// The sandbox's VM is made the first time Lua has to be read: a session of bare words (and a
/// command that reads no line at all) starts without making one.
public struct LuaLiteralReader {
  private let lua = LazySandbox()

  /// A reader with no VM yet: its sandbox is made the first time a line has to be read as Lua.
  ///
  /// ```swift
  /// let reader = LuaLiteralReader()
  /// let word = try reader.action(from: "increment")  // the string "increment"
  /// let table = try reader.action(from: #"{ type = "add", title = "milk" }"#)
  /// let name = reader.envValue(from: "ada")  // not a literal: the string "ada"
  /// ```
  public init() {}

  /// The action a line of input stands for, from its bytes exactly as they came: a bare word
  /// (`increment`, surrounding spaces and tabs aside) is the string itself; anything else is
  /// read as Lua (`return` and the line), so every byte a Lua string literal can hold reaches
  /// the action as it is, invalid UTF-8 and NUL included, and what Lua refuses is refused in
  /// Lua's words.
  ///
  /// With `evaluate`, what is not a word is its value there instead (the REPL reads a line in
  /// the feature's VM, where `state` and `env` are bound, read-only).
  public func action(
    from line: [UInt8], evaluate: (([UInt8]) throws -> LuaValue)? = nil
  ) throws -> LuaValue {
    let word = line.trimmingSpacesAndTabs
    if let text = String(validating: word, as: UTF8.self), text.isLuaWord {
      return .string(LuaString(bytes: Array(word)))
    }
    let value: LuaValue
    do {
      if let evaluate {
        value = try evaluate(line)
      } else {
        let (vm, sandbox) = try lua.made()
        value =
          try vm.evaluate(bytes: Self.returning(line), chunkName: "input", in: sandbox).first
          ?? .nil
      }
    } catch let error as LuaError {
      // Lua's own words, which may not say where ("C stack overflow" for a table nested past
      // what its parser takes), after what was being read. Of one line, `input:1: ` says
      // nothing (and read beside a host's "line 3 of the input", something wrong).
      var message = error.message
      if !line.contains(UInt8(ascii: "\n")), let place = message.range(of: "input:1: ") {
        message.removeSubrange(place)
      }
      throw NotAnAction(message: message + Self.shapeHint(line))
    } catch {
      throw NotAnAction(message: "\(error)")
    }
    // Data, as every action is: a function typed in (`f = print`) or a metatable is refused.
    if let problem = value.dataProblem {
      throw NotAnAction(message: "action\(problem.path): \(problem.message)")
    }
    // A table with no string type is no action: said here, where the line is known.
    if case let .table(table) = value, table["type"].stringValue == nil {
      let type = table["type"]
      let first = table[1].stringValue.map {
        " (the type is a field: { type = \($0.debugDescription), ... })"
      }
      throw NotAnAction(
        message: "expected a table with a string type, got one whose type is "
          + (type == .nil ? "nil" : "a " + (type.doubleValue != nil ? "number" : type.typeName))
          + (type == .nil ? first ?? Self.unquotedTypeHint(line, type: type) : ""))
    }
    return value
  }

  /// What a line that is no Lua may have meant: JSON (`{"type":"add"}`), or a word with fields
  /// after it (`add Dune`).
  static func shapeHint(_ line: [UInt8]) -> String {
    let text = String(decoding: line.trimmingSpacesAndTabs, as: UTF8.self)
    if text.hasPrefix("{\""), text.contains("\":") {
      return " (an action is a Lua table, not JSON: { type = \"add\", title = \"Dune\" })"
    }
    if let space = text.firstIndex(of: " "), String(text[..<space]).isLuaWord {
      let word = text[..<space]
      return " (a word alone is an action; with fields, it is a table: { type = \"\(word)\", ... })"
    }
    return ""
  }

  /// `{ type = add }`: the word read as a variable, nil here.
  static func unquotedTypeHint(_ line: [UInt8], type: LuaValue) -> String {
    guard type == .nil else { return "" }
    let text = String(decoding: line, as: UTF8.self)
    guard let found = text.range(of: "type") else { return "" }
    let rest = text[found.upperBound...].drop { $0 == " " || $0 == "\t" }
    guard rest.first == "=" else { return "" }
    let value = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
    let word = value.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
    guard !word.isEmpty, String(word).isLuaWord, !["nil", "true", "false"].contains(word) else {
      return ""
    }
    return " (type = \(word) reads a variable, nil here: write type = \"\(word)\")"
  }

  /// `action(from:)` of text typed in Swift (its UTF-8 bytes).
  public func action(from text: String) throws -> LuaValue {
    try action(from: Array(text.utf8))
  }

  /// Whether `line` is Lua that more lines may finish (an open table), as `lua5.4` reads it.
  public func isIncomplete(_ line: [UInt8]) -> Bool {
    do throws(LuaError) {
      let (vm, sandbox) = try lua.made()
      _ = try vm.load(bytes: Self.returning(line), chunkName: "input", in: sandbox)
      return false
    } catch {
      if case .syntax(_, incompleteInput: true) = error { return true }
      return false
    }
  }

  /// Whether `text` (its UTF-8 bytes) is Lua that more lines may finish, such as an open table.
  public func isIncomplete(_ text: String) -> Bool { isIncomplete(Array(text.utf8)) }

  private static func returning(_ line: [UInt8]) -> [UInt8] { Array("return ".utf8) + line }

  /// An `--env` value: a Lua literal (`false`, `3`, `-2.5`, `"text"`, `{ "a", "b" }`) as that
  /// value; anything else (a word, a URL, a date, an empty text) as the text itself, so `--env
  /// name=ada` still works. `--env n='"3"'` is the string "3". Read by the data-file reader,
  /// which runs nothing: `2024-01-05` is the text, not the 2018 Lua would compute from it, and
  /// `os.exit(1)` is text too.
  public func envValue(from text: String) -> LuaValue {
    if text.isLuaWord, !["true", "false", "nil"].contains(text) {
      return .string(LuaString(text))
    }
    // One level less deep than any value: it goes into `env`, a table itself (a value as deep
    // as any was read as a table, then failed the load).
    guard
      let value = try? LuaDataFile.read(
        Array(("return " + text).utf8), chunkName: "--env",
        maximumDepth: LuaValue.maximumDepth - 1),
      value != .nil
    else { return .string(LuaString(text)) }
    return value
  }
}

/// The reader's VM and sandbox, made on first use (under a lock, as the copies of a reader share it).
private final class LazySandbox: @unchecked Sendable {
  private let lock = NSLock()
  private var lua: (LuaVM, LuaSandbox)?  // under `lock`

  func made() throws(LuaError) -> (LuaVM, LuaSandbox) {
    lock.lock()
    defer { lock.unlock() }
    if let lua { return lua }
    let vm = try LuaVM(limits: LuaLimits(memory: 8 << 20, instructions: 100_000))
    let made = (vm, try vm.makeSandbox(.init(print: { _ in })))
    lua = made
    return made
  }
}

/// A line that is not an action, with Lua's reason.
public struct NotAnAction: Error, CustomStringConvertible {
  /// Why: Lua's error message, or what in the value is not data (a function, a metatable).
  public let message: String
  public var description: String {
    "the line is not an action (a word, or a Lua table): \(message)"
  }
}

extension String {
  /// Letters, digits and `_`, not starting with a digit: a shorthand action name.
  public var isLuaWord: Bool {
    guard let first = unicodeScalars.first, !CharacterSet.decimalDigits.contains(first) else {
      return false
    }
    return unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "_" }
  }
}
