import Composable
import LuaKit

/// The fields of an effect table the interpreter reads, each checked and, when wrong, named by
/// its path (`effect.effects[2].seconds`) in the error.
extension LuaEffectInterpreter {
  func effects(_ value: LuaValue, at path: String) throws(LuaFeatureError) -> [LuaEffect] {
    guard let table = value.tableValue, table.isSequence || table.isEmpty else {
      throw fail(path, "expected a list of effects, got \(value.typeName)")
    }
    var result: [LuaEffect] = []
    for (offset, element) in table.sequence.enumerated() {
      result.append(try effect(from: element, at: "\(path)[\(offset + 1)]"))
    }
    return result
  }

  /// The action wrappers composition put on an effect (functions), outermost first.
  func wrappers(
    _ value: LuaValue, at path: String
  ) throws(LuaFeatureError) -> [LuaReference] {
    guard value != .nil else { return [] }
    guard let table = value.tableValue else { throw fail(path, "expected a list of functions") }
    var result: [LuaReference] = []
    for element in table.sequence {
      guard case let .function(function) = element else {
        throw fail(path, "expected a list of functions, got a \(element.typeName)")
      }
      result.append(function)
    }
    return result
  }

  /// The `action` of an `effect` (`effect.send`, `after`, `every`), passed through its
  /// `wrappers` now (`LuaFeature.wrap`).
  func wrappedAction(
    _ table: LuaTable, at path: String, effect: String
  ) throws(LuaFeatureError) -> LuaValue {
    let action = try self.action(table["action"], at: path + ".action", effect: effect)
    let wrappers = try self.wrappers(table["wrappers"], at: path + ".wrappers")
    guard !wrappers.isEmpty else { return action }
    let wrapped: LuaValue
    // Read-only, as a wrapper of `effect.run`'s sends is when it runs later: which effect
    // kind a wrapper sits on must not decide whether it may write the state.
    do throws(LuaError) {
      wrapped = try vm.withStateReadOnly { () throws(LuaError) -> LuaValue in
        try LuaFeature.wrap(action, with: wrappers, in: vm)
      }
    } catch {
      throw .effect(action: describeAction(), error: error)
    }
    // A wrapper is Lua code (`map_effect`'s included): what it makes must be data too.
    if let problem = wrapped.dataProblem {
      throw fail(
        path + ".wrappers",
        "\(effect): the wrapped action\(problem.path): \(problem.message) (\(LuaAction.dataRule))")
    }
    return wrapped
  }

  /// An action an effect carries: an action, and plain data, as the state is (checked here, at
  /// the reducer's return, so the action that returned it fails and is rolled back; a function
  /// or a table with a metatable would otherwise arrive later, or arrive changed).
  func action(
    _ value: LuaValue, at path: String, effect: String
  ) throws(LuaFeatureError) -> LuaValue {
    let action: LuaValue
    do { action = try LuaAction.normalize(value) } catch {
      throw fail(path, error.message)
    }
    if let problem = action.dataProblem {
      throw fail(path + problem.path, "\(effect): \(problem.message) (\(LuaAction.dataRule))")
    }
    return action
  }

  func duration(_ value: LuaValue, at path: String) throws(LuaFeatureError) -> Duration {
    guard let duration = value.doubleValue.flatMap(Seconds.duration) else {
      throw fail(path, "expected \(Seconds.expected), got \(LuaValue.describeForMessage(value))")
    }
    return duration
  }

  /// A flag of an effect: nil for `otherwise`, else a boolean (a string "yes" is no flag).
  func flag(
    _ value: LuaValue, at path: String, otherwise: Bool
  ) throws(LuaFeatureError) -> Bool {
    switch value {
    case .nil: return otherwise
    case let .boolean(flag): return flag
    default: throw fail(path, "expected a boolean, got \(value.typeName)")
    }
  }

  func identifier(_ value: LuaValue, at path: String) throws(LuaFeatureError) -> LuaValue {
    guard Self.isIdentifier(value, depth: 0) else {
      throw fail(
        path,
        "expected an id (a string, number or boolean, or a composition's scoped id), got "
          + (value.tableValue == nil ? value.typeName : "a table of another shape"))
    }
    // An id is kept, compared and hashed for as long as its effects run, and by every effect
    // that names it: a name, not data.
    let bytes = Self.identifierBytes(value)
    guard bytes <= Self.maximumIdentifierBytes else {
      throw fail(
        path,
        "an id may hold at most \(Self.maximumIdentifierBytes) bytes, this one holds \(bytes)"
          + (value.tableValue == nil
            ? ". To fix, name the effect with a short string or a number"
            : " with the scopes of the compositions it is in (an element's id is one). To fix, "
              + "name the effect, and the elements, with shorter strings or numbers"))
    }
    return value
  }

  /// How many bytes a cancel id may hold (`identifierBytes`): room for a long name, and for the
  /// scopes composition wraps around it.
  static let maximumIdentifierBytes = 4096

  /// The bytes of an id: a string's own, 8 for a number or a boolean, and for a scoped id those
  /// of its keys and values.
  static func identifierBytes(_ value: LuaValue) -> Int {
    switch value {
    case let .string(string): return string.bytes.count
    case let .table(table):
      return table.entries.reduce(0) { $0 + identifierBytes($1.key) + identifierBytes($1.value) }
    default: return 8
    }
  }

  /// A string, number or boolean; or an id composition scoped to a child (`{ scope = { for_each
  /// = "todos", element = 3 }, id = "timer" }`, composable.lua's `scope_ids`), nested as deep
  /// as compositions nest; or a child's scope alone (`{ scope = { if_let = "detail" } }`), the
  /// id composition runs all of that child's effects under, to end them when the child goes.
  static func isIdentifier(_ value: LuaValue, depth: Int) -> Bool {
    switch value {
    case .string, .integer, .number, .boolean: return true
    case let .table(table):
      guard depth < 32, let scope = table["scope"].tableValue,
        table.count == 1 || (table.count == 2 && isIdentifier(table["id"], depth: depth + 1))
      else { return false }
      return scope.entries.allSatisfy { key, value in
        key.stringValue != nil && isIdentifier(value, depth: depth + 1)
          && value.tableValue == nil
      }
    default: return false
    }
  }
}
