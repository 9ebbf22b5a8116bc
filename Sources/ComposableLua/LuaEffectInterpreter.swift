import Composable
import LuaKit

/// Turns what a Lua reducer returned into an `Effect`, checking every field. Timers run on the
/// store's clock.
struct LuaEffectInterpreter {
  let runner: LuaEffectRunner
  /// The feature's VM, reached while the reducer's call still holds it: the actions of `send`,
  /// `after` and `every` go through their wrappers here.
  let vm: LuaVM
  var clock: any Clock<Duration> { runner.clock }
  /// The action the effect answers, described only when an error needs it.
  var describeAction: @Sendable () -> String { runner.describeOrigin }
  /// How many effects one reducer's result may hold: an effect table reached at several places
  /// runs once at each, so `e = effect.merge(e, e)` forty times over would be 2^40 effects.
  static let maximumEffects = 10_000
  private let count = EffectCount()

  private final class EffectCount {
    var effects = 0
  }

  init(
    feature: LuaFeature, vm: LuaVM, dependencies: LuaFeatureDependencies,
    describeAction: @escaping @Sendable () -> String,
    onError: @escaping @Sendable (LuaFeatureError) -> Void
  ) {
    self.vm = vm
    runner = LuaEffectRunner(
      feature: feature, dependencies: dependencies, onError: onError,
      describeOrigin: describeAction)
  }

  func effect(from value: LuaValue) throws(LuaFeatureError) -> LuaEffect {
    try effect(from: value, at: "effect")
  }

  func fail(_ path: String, _ message: String) -> LuaFeatureError {
    .malformedEffect(
      action: describeAction(), path: path,
      message: message)
  }

  func effect(from value: LuaValue, at path: String) throws(LuaFeatureError) -> LuaEffect {
    if value == .nil { return .none }
    count.effects += 1
    guard count.effects <= Self.maximumEffects else {
      throw fail(
        "effect",  // the whole result: where the count ran out says little
        "more than \(Self.maximumEffects) effects in one result (an effect held at several "
          + "places runs at each: effect.merge(e, e) nested doubles them). To fix, merge each "
          + "effect once")
    }
    guard let table = value.tableValue else {
      throw fail(
        path, "expected an effect (a table made by composable.effect), got \(value.typeName)")
    }
    guard let kind = table["kind"].stringValue else {
      throw fail(
        path + ".kind",
        "expected a string naming the kind of effect, got \(table["kind"].typeName)")
    }
    guard let known = LuaEffectKind(rawValue: kind) else {
      throw fail(
        path + ".kind",
        "unknown effect kind \(LuaValue(kind)); the kinds are "
          + LuaEffectKind.allCases.map(\.rawValue).joined(separator: ", "))
    }
    switch known {
    case .none: return .none
    case .send:
      // Held too: a send may wait its turn in a concatenation or behind a throttle.
      let action = try wrappedAction(table, at: path, effect: "effect.send")
      return try held(.send(action), data: action, at: path)
    case .merge: return .merge(try effects(table["effects"], at: path + ".effects"))
    case .concat: return .concatenate(try effects(table["effects"], at: path + ".effects"))
    case .after, .every:
      // What is held is the action as sent, made by the wrappers (a `map_effect` may make a
      // larger one than it was given).
      let action = try wrappedAction(table, at: path, effect: "effect." + kind)
      let timed =
        known == .after ? try after(table, action, at: path) : try every(table, action, at: path)
      return try held(timed, data: action, at: path)
    case .cancellable: return try cancellable(table, at: path)
    case .cancel: return .cancel(id: try identifier(table["id"], at: path + ".id"))
    case .debounce: return try debounce(table, at: path)
    case .throttle: return try throttle(table, at: path)
    case .run: return try held(try run(table, at: path), data: .nil, at: path)
    case .http: return try held(try http(table, at: path), data: table["request"], at: path)
    case .file: return try held(try file(table, at: path), data: table["request"], at: path)
    }
  }

  /// `effect`, holding its share of what the feature's running effects may hold (see
  /// LuaEffectsInFlight) until it ends; past the bounds, the action fails.
  private func held(
    _ effect: LuaEffect, data: LuaValue, at path: String
  ) throws(LuaFeatureError) -> LuaEffect {
    switch runner.feature.effectsInFlight.hold(bytes: data.heldBytes) {
    case let .success(hold): return effect.holding(hold)
    case let .failure(refusal): throw fail(path, refusal.message)
    }
  }

  // MARK: One function per kind

  private func after(
    _ table: LuaTable, _ action: LuaValue, at path: String
  ) throws(LuaFeatureError) -> LuaEffect {
    .after(try duration(table["seconds"], at: path + ".seconds"), clock: clock, send: action)
  }

  private func every(
    _ table: LuaTable, _ action: LuaValue, at path: String
  ) throws(LuaFeatureError) -> LuaEffect {
    let interval = try duration(table["seconds"], at: path + ".seconds")
    guard interval > .zero else {
      throw fail(path + ".seconds", "expected more than 0 seconds between ticks, got 0")
    }
    return .timer(every: interval, clock: clock, send: action).named("every")
  }

  private func cancellable(
    _ table: LuaTable, at path: String
  ) throws(LuaFeatureError) -> LuaEffect {
    let inner = try effect(from: table["effect"], at: path + ".effect")
    return inner.cancellable(
      id: try identifier(table["id"], at: path + ".id"),
      cancelInFlight: table["cancel_in_flight"].boolValue ?? false)
  }

  private func debounce(_ table: LuaTable, at path: String) throws(LuaFeatureError) -> LuaEffect {
    let inner = try effect(from: table["effect"], at: path + ".effect")
    return inner.debounce(
      id: try identifier(table["id"], at: path + ".id"),
      for: try duration(table["seconds"], at: path + ".seconds"), clock: clock)
  }

  private func throttle(_ table: LuaTable, at path: String) throws(LuaFeatureError) -> LuaEffect {
    let inner = try effect(from: table["effect"], at: path + ".effect")
    return inner.throttle(
      id: try identifier(table["id"], at: path + ".id"),
      for: try duration(table["seconds"], at: path + ".seconds"), clock: clock,
      latest: table["latest"].boolValue ?? true)
  }

  private func run(_ table: LuaTable, at path: String) throws(LuaFeatureError) -> LuaEffect {
    guard case let .function(body) = table["fn"] else {
      throw fail(path + ".fn", "expected the function of effect.run, got \(table["fn"].typeName)")
    }
    let wrappers = try self.wrappers(table["wrappers"], at: path + ".wrappers")
    let runner = self.runner
    return LuaEffect.run { send in await runner.run(body, wrappers: wrappers, send: send) }
      .named("run")
  }

  private func http(_ table: LuaTable, at path: String) throws(LuaFeatureError) -> LuaEffect {
    let request = table["request"]
    try checkFields(
      of: request, allowed: LuaHTTP.requestFields, effect: "effect.http", at: path + ".request")
    let response = try responseType(request, at: path)
    // Every check of the request, now: a bad URL or a body with no JSON form fails the action
    // that returned it, as a misspelt field does.
    let checked: HTTPRequest
    do throws(LuaError) {
      checked = try LuaHTTP.request(from: request, encodeJSON: vm.jsonEncode)
    } catch {
      guard case let .conversion(field, message) = error else {
        throw fail(path + ".request", error.message)
      }
      throw fail(path + "." + field, "effect.http: \(message)")
    }
    let wrappers = try self.wrappers(table["wrappers"], at: path + ".wrappers")
    let runner = self.runner
    return LuaEffect.run { send in
      await runner.request(checked, responseType: response, wrappers: wrappers, send: send)
    }.named("http")
  }

  private func file(_ table: LuaTable, at path: String) throws(LuaFeatureError) -> LuaEffect {
    let operation = table["operation"].stringValue ?? ""
    guard let known = LuaFileOperation(rawValue: operation) else {
      throw fail(
        path + ".operation", "expected \(LuaFileOperation.listed), got \(table["operation"])")
    }
    var (request, filePath) = try fileRequest(
      table["request"], operation: known, at: path + ".request")
    // Writes may go unanswered; what a read, a list or an exists finds needs an action to go to.
    let response =
      known.answersWithData
      ? try responseType(request, at: path) : request["response"].stringValue
    if known.writesContents, request["json"] == true {
      // `data` written as JSON, encoded now, while the VM is at hand.
      do throws(LuaError) {
        request["contents"] = .string(LuaString(try vm.jsonEncode(request["data"])))
      } catch {
        throw fail(path + ".request.data", error.message)
      }
    }
    let wrappers = try self.wrappers(table["wrappers"], at: path + ".wrappers")
    let runner = self.runner
    let (checked, target) = (request, filePath)
    return LuaEffect.run { send in
      await runner.fileOperation(
        known, at: target, checked, responseType: response, wrappers: wrappers, send: send)
    }.named("file." + operation)
  }

  /// The request of `effect.file.*`, every field checked, whether or not an action hears back:
  /// a misspelt field is an error here, not a write that silently does something else.
  ///
  /// The path is made a `DataPath` here, so a path that could not be used (a NUL, a control
  /// byte, `..`, absolute...) fails the action that returned it, naming the field.
  private func fileRequest(
    _ request: LuaValue, operation: LuaFileOperation, at path: String
  ) throws(LuaFeatureError) -> (request: LuaValue, path: DataPath) {
    let effect = "effect.file.\(operation.rawValue)"
    try checkFields(of: request, allowed: operation.requestFields, effect: effect, at: path)
    guard case let .string(pathBytes) = request["path"] else {
      throw fail(path + ".path", "expected a string, got \(request["path"].typeName)")
    }
    let filePath: DataPath
    do { filePath = try DataPath(validating: pathBytes.bytes) } catch {
      throw fail(path + ".path", "\(effect): \(error)")
    }
    if request["json"] != .nil, request["json"].boolValue == nil {
      throw fail(path + ".json", "expected a boolean, got \(request["json"].typeName)")
    }
    if operation.writesContents {
      if request["json"] == true {
        guard request["contents"] == .nil else {
          throw fail(path + ".contents", "with json = true, give the value as data, not contents")
        }
      } else {
        guard request["data"] == .nil else {
          throw fail(path + ".data", "data is written with json = true; text goes in contents")
        }
        guard case .string = request["contents"] else {
          throw fail(
            path + ".contents", "expected a string, got \(request["contents"].typeName)")
        }
      }
    }
    return (request, filePath)
  }

  /// A request table whose every field is one `effect` takes: a misspelt field is an error
  /// naming it, whether or not an action would hear back.
  private func checkFields(
    of request: LuaValue, allowed: [String], effect: String, at path: String
  ) throws(LuaFeatureError) {
    guard let fields = request.tableValue else {
      throw fail(path, "expected a request table, got \(request.typeName)")
    }
    for key in fields.entries.keys {
      guard let name = key.stringValue, allowed.contains(name) else {
        throw fail(
          path + LuaValue.pathComponent(key, atRoot: false),
          "\(effect) takes no such field; its fields are " + allowed.joined(separator: ", "))
      }
    }
  }

  /// The type of the action a response arrives as: `request.response`, a string.
  private func responseType(
    _ request: LuaValue, at path: String
  ) throws(LuaFeatureError) -> String {
    guard let response = request["response"].stringValue else {
      throw fail(
        path + ".request.response",
        "expected the type of the response action (a string), got \(request["response"].typeName)")
    }
    return response
  }
}
