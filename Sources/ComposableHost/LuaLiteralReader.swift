import Foundation
import LuaKit

/// Reads what a person types as Lua: an action (a bare word, or a Lua table) or an `--env`
/// value, each evaluated in a sandbox of its own under small limits.
public struct LuaLiteralReader {
  let vm: LuaVM
  let sandbox: LuaSandbox

  public init() throws {
    vm = try LuaVM(limits: LuaLimits(memory: 8 << 20, instructions: 100_000))
    sandbox = try vm.makeSandbox(.init(print: { _ in }))
  }

  public func action(from text: String) throws -> LuaValue {
    if text.isLuaWord { return .string(LuaString(text)) }
    do {
      return try vm.evaluate("return " + text, chunkName: "input", in: sandbox).first ?? .nil
    } catch {
      // Lua's own words, which may not say where ("C stack overflow" for a table nested past
      // what its parser takes), after what was being read.
      throw NotAnAction(message: error.message)
    }
  }

  /// An `--env` value: a Lua literal (`false`, `3`, `2.5`, `"text"`, `{ "a", "b" }`) as that
  /// value; anything else (a word, a URL, an empty text) as the text itself, so `--env
  /// name=ada` still works. `--env n='"3"'` is the string "3".
  /// Whether `text` is Lua that more lines may finish (an open table), as `lua5.4` reads it.
  public func isIncomplete(_ text: String) -> Bool {
    do throws(LuaError) {
      _ = try vm.load("return " + text, chunkName: "input", in: sandbox)
      return false
    } catch {
      if case .syntax(_, incompleteInput: true) = error { return true }
      return false
    }
  }

  public func envValue(from text: String) -> LuaValue {
    if text.isLuaWord, !["true", "false", "nil"].contains(text) {
      return .string(LuaString(text))
    }
    guard
      let values = try? vm.evaluate("return " + text, chunkName: "--env", in: sandbox),
      values.count == 1, values[0] != .nil
    else { return .string(LuaString(text)) }
    return values[0]
  }
}

/// A line that is not an action, with Lua's reason.
public struct NotAnAction: Error, CustomStringConvertible {
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
