import Composable
import LuaKit

/// Turns what a Lua reducer returned into an `Effect`, checking every field. Timers run on the
/// store's clock.
struct LuaEffectInterpreter {
  let runner: LuaEffectRunner
  var clock: any Clock<Duration> { runner.clock }
  /// The action the effect answers, described only when an error needs it.
  var action: LuaValue { runner.origin }

  init(
    feature: LuaFeature, dependencies: LuaFeatureDependencies, action: LuaValue,
    onError: @escaping @Sendable (LuaFeatureError) -> Void
  ) {
    runner = LuaEffectRunner(
      feature: feature, dependencies: dependencies, onError: onError, origin: action)
  }

  static let kinds = [
    "none", "send", "merge", "concat", "after", "every", "cancellable", "cancel", "debounce",
    "throttle", "run", "http", "file",
  ]

  func effect(from value: LuaValue) throws(LuaFeatureError) -> Effect<LuaValue> {
    try effect(from: value, at: "effect")
  }

  private func fail(_ path: String, _ message: String) -> LuaFeatureError {
    .malformedEffect(
      action: ((try? LuaAction.normalize(action)) ?? action).description, path: path,
      message: message)
  }

  private func effect(from value: LuaValue, at path: String) throws(LuaFeatureError) -> Effect<LuaValue> {
    if value == .nil { return .none }
    guard let table = value.tableValue else {
      throw fail(path, "expected an effect (a table made by composable.effect), got \(value.typeName)")
    }
    guard let kind = table["kind"].stringValue else {
      throw fail(path + ".kind", "expected a string naming the kind of effect, got \(table["kind"].typeName)")
    }
    switch kind {
    case "none":
      return .none
    case "send":
      return .send(try action(table["action"], at: path + ".action"))
    case "merge":
      return .merge(try effects(table["effects"], at: path + ".effects"))
    case "concat":
      return .concatenate(try effects(table["effects"], at: path + ".effects"))
    case "after":
      return .after(
        try duration(table["seconds"], at: path + ".seconds"), clock: clock,
        send: try action(table["action"], at: path + ".action"))
    case "every":
      let interval = try duration(table["seconds"], at: path + ".seconds")
      guard interval > .zero else {
        throw fail(path + ".seconds", "expected more than 0 seconds between ticks, got 0")
      }
      return .timer(
        every: interval, clock: clock, send: try action(table["action"], at: path + ".action"))
    case "cancellable":
      let inner = try effect(from: table["effect"], at: path + ".effect")
      return inner.cancellable(
        id: try identifier(table["id"], at: path + ".id"),
        cancelInFlight: table["cancel_in_flight"].boolValue ?? false)
    case "cancel":
      return .cancel(id: try identifier(table["id"], at: path + ".id"))
    case "debounce":
      let inner = try effect(from: table["effect"], at: path + ".effect")
      return inner.debounce(
        id: try identifier(table["id"], at: path + ".id"),
        for: try duration(table["seconds"], at: path + ".seconds"), clock: clock)
    case "throttle":
      let inner = try effect(from: table["effect"], at: path + ".effect")
      return inner.throttle(
        id: try identifier(table["id"], at: path + ".id"),
        for: try duration(table["seconds"], at: path + ".seconds"), clock: clock,
        latest: table["latest"].boolValue ?? true)
    case "run":
      guard case let .function(body) = table["fn"] else {
        throw fail(path + ".fn", "expected the function of effect.run, got \(table["fn"].typeName)")
      }
      let wrappers = try self.wrappers(table["wrappers"], at: path + ".wrappers")
      let runner = self.runner
      return .run { send in await runner.run(body, wrappers: wrappers, send: send) }
    case "http":
      let request = table["request"]
      guard let response = request["response"].stringValue else {
        throw fail(
          path + ".request.response",
          "expected the type of the response action (a string), got \(request["response"].typeName)")
      }
      let wrappers = try self.wrappers(table["wrappers"], at: path + ".wrappers")
      let runner = self.runner
      return .run { send in
        await runner.request(request, responseType: response, wrappers: wrappers, send: send)
      }
    case "file":
      let operation = table["operation"].stringValue ?? ""
      guard LuaFileOperation(rawValue: operation) != nil else {
        throw fail(
          path + ".operation", "expected \(LuaFileOperation.listed), got \(table["operation"])")
      }
      let request = table["request"]
      guard request["path"].stringValue != nil else {
        throw fail(path + ".request.path", "expected a string, got \(request["path"].typeName)")
      }
      let response = request["response"].stringValue
      if response == nil, operation == "read" || operation == "list" || operation == "exists" {
        throw fail(
          path + ".request.response",
          "expected the type of the response action (a string), got \(request["response"].typeName)")
      }
      let wrappers = try self.wrappers(table["wrappers"], at: path + ".wrappers")
      let runner = self.runner
      return .run { send in
        await runner.fileOperation(
          operation, request, responseType: response, wrappers: wrappers, send: send)
      }
    default:
      throw fail(
        path + ".kind",
        "unknown effect kind \(LuaValue(kind)); the kinds are "
          + Self.kinds.joined(separator: ", "))
    }
  }

  private func effects(_ value: LuaValue, at path: String) throws(LuaFeatureError) -> [Effect<LuaValue>] {
    guard let table = value.tableValue, table.isSequence || table.isEmpty else {
      throw fail(path, "expected a list of effects, got \(value.typeName)")
    }
    var result: [Effect<LuaValue>] = []
    for (offset, element) in table.sequence.enumerated() {
      result.append(try effect(from: element, at: "\(path)[\(offset + 1)]"))
    }
    return result
  }

  /// The action wrappers composition put on an effect (functions), outermost first.
  private func wrappers(_ value: LuaValue, at path: String) throws(LuaFeatureError) -> [LuaReference] {
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

  private func action(_ value: LuaValue, at path: String) throws(LuaFeatureError) -> LuaValue {
    do { return try LuaAction.normalize(value) } catch {
      throw fail(path, error.message)
    }
  }

  private func duration(_ value: LuaValue, at path: String) throws(LuaFeatureError) -> Duration {
    guard let duration = value.doubleValue.flatMap(Seconds.duration) else {
      throw fail(path, "expected \(Seconds.expected), got \(LuaValue.describeForMessage(value))")
    }
    return duration
  }

  private func identifier(_ value: LuaValue, at path: String) throws(LuaFeatureError) -> LuaValue {
    switch value {
    case .string, .integer, .number, .boolean: return value
    default: throw fail(path, "expected an id (a string, number or boolean), got \(value.typeName)")
    }
  }
}

/// The action shape: a table with a string `type`, or a bare string as shorthand.
public enum LuaAction {
  public struct Malformed: Error, Equatable {
    public let message: String
  }

  /// The action as a table: `"increment"` becomes `{ type = "increment" }`.
  static let typeKey = LuaValue.string("type")

  public static func normalize(_ value: LuaValue) throws(Malformed) -> LuaValue {
    switch value {
    case .string: return .table(LuaTable(entries: [typeKey: value]))
    case let .table(table):
      if case .string = table[typeKey] { return value }
      throw Malformed(
        message: "expected an action with a string type field, got a table whose type is "
          + table[typeKey].typeName)
    default:
      throw Malformed(message: "expected an action (a table with a type, or a string), got \(value.typeName)")
    }
  }
}
