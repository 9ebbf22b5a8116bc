import Composable
import LuaKit

/// Turns what a Lua reducer returned into an `Effect`, checking every field. Each kind's table
/// is read by its own definition (Effects/, `LuaEffectKinds`); timers run on the store's clock.
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
    describeAction: @escaping @Sendable () -> String, origin: Int? = nil,
    onError: @escaping @Sendable (LuaFeatureError) -> Void
  ) {
    self.vm = vm
    runner = LuaEffectRunner(
      feature: feature, dependencies: dependencies, onError: onError,
      describeOrigin: describeAction, origin: origin)
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
      // An action returned where its effect belongs (`return { type = "bump" }`, for
      // `return effect.send({ type = "bump" })`): said as such, not as a missing kind alone.
      if table["kind"] == .nil, table["type"].stringValue != nil {
        throw fail(
          path,
          "expected an effect, got an action (\(value.description(limit: 60))). To fix, send it "
            + "with return effect.send(action), or return nothing")
      }
      throw fail(
        path + ".kind",
        "expected a string naming the kind of effect, got \(table["kind"].typeName)")
    }
    // A dictionary made once (`LuaEffectKinds.byName`): one hash of the name, no allocation.
    guard let known = LuaEffectKinds.byName[kind] else {
      let nearest = NearestName.nearest(to: kind, among: LuaEffectKinds.byName.keys)
      throw fail(
        path + ".kind",
        "unknown effect kind \(LuaValue(kind))\(Self.didYouMean(nearest)); the kinds are "
          + LuaEffectKinds.listed)
    }
    // Every field is one the kind has: a misspelt one (`ids`, `cancel_inflight`) would
    // otherwise be a setting that silently does nothing.
    for key in table.entries.keys where !known.keys.contains(key) {
      let fields = known.kind.fields.filter { $0 != "wrappers" }
      let nearest = key.stringValue.flatMap { NearestName.nearest(to: $0, among: fields) }
      throw fail(
        path + (key.stringValue.map { "." + $0 } ?? "[\(key)]"),
        "effect.\(kind) has no field \(key)\(Self.didYouMean(nearest)); "
          + (fields.isEmpty ? "it has none" : "its fields are " + fields.joined(separator: ", "))
          + ". To fix, make the effect with composable.effect's constructors")
    }
    return try known.kind.effect(from: table, at: path, in: self)
  }

  /// `effect`, holding its share of what the feature's running effects may hold (see
  /// LuaEffectsInFlight) until it ends; past the bounds, the action fails.
  func held(
    _ effect: LuaEffect, data: LuaValue, at path: String
  ) throws(LuaFeatureError) -> LuaEffect {
    switch runner.feature.effectsInFlight.hold(bytes: data.heldBytes) {
    case let .success(hold): return effect.holding(hold)
    case let .failure(refusal): throw fail(path, refusal.message)
    }
  }

  /// A request table whose every field is one `effect` takes: a misspelt field is an error
  /// naming it, whether or not an action would hear back.
  func checkFields(
    of request: LuaValue, allowed: [String], effect: String, at path: String
  ) throws(LuaFeatureError) {
    guard let fields = request.tableValue else {
      throw fail(path, "expected a request table, got \(request.typeName)")
    }
    for key in fields.entries.keys {
      guard let name = key.stringValue, allowed.contains(name) else {
        let nearest = key.stringValue.flatMap { NearestName.nearest(to: $0, among: allowed) }
        throw fail(
          path + LuaValue.pathComponent(key, atRoot: false),
          "\(effect) takes no such field\(Self.didYouMean(nearest)); its fields are "
            + allowed.joined(separator: ", "))
      }
    }
  }

  /// ` (did you mean NAME?)` for a name found near a misspelt one, or nothing.
  static func didYouMean(_ nearest: String?) -> String {
    nearest.map { " (did you mean \($0)?)" } ?? ""
  }

  /// The type of the action a response arrives as: `request.response`, a string.
  func responseType(
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
