import Composable
import ComposableLua
import Foundation
import LuaKit

/// A recorded session laid out as the steps of a TestStore test: each action sent or received
/// with the state before and after it, and the time advanced between them. The Lua and the
/// Swift test writers both write from it.
///
/// The states come from replaying the session on a fresh load of the feature's code (with the
/// recorded `env` answers), so the test pins what the code does now.
struct SessionTestPlan {
  enum Step {
    case send(LuaValue, before: LuaValue, after: LuaValue)
    case receive(LuaValue, before: LuaValue, after: LuaValue)
    /// Milliseconds of the test clock.
    case advance(milliseconds: Int)
    /// An action that raised: a test cannot send it and go on, so it is left out, said why.
    case leftOut(number: Int, action: LuaValue, error: String)
  }

  var steps: [Step] = []
  /// What `env` answered the reducers, in order.
  var draws: [LuaEnvironmentTape.Draw] = []
  var exchanges: [RecordedExchange]
  var initialState: LuaValue
  var env: LuaValue
  var feature: URL
  /// Seconds a feature that persists waits before a save; nil for one that does not.
  var saveDelay: Double?
  /// Effects (other than saves) still running when the test was written, as `:effects`
  /// names them.
  var inFlight: [String]

  init(
    recording: SessionRecording, exchanges: [RecordedExchange], feature: URL, inFlight: [String]
  ) throws {
    self.exchanges = exchanges
    self.initialState = recording.initialState
    self.env = recording.env
    self.feature = feature
    self.inFlight = inFlight
    let loaded = try LuaFeature(
      contentsOf: feature, state: recording.initialState,
      env: recording.env == .nil ? [:] : recording.env, print: { _ in })
    saveDelay = loaded.persistence?.debounce
    var dependencies = DependencyValues.live
    dependencies.uuid = .incrementing
    dependencies.random = RandomSource(seed: 0)
    let replayer = SessionReplayer(
      feature: loaded, dependencies: dependencies, tape: LuaEnvironmentTape())
    var state = recording.initialState
    var clock: Int?
    for (index, recorded) in recording.actions.enumerated() {
      let outcome = replayer.replay(recorded)
      if let error = outcome.action.error {
        steps.append(.leftOut(number: index + 1, action: recorded.action, error: error))
        continue
      }
      draws += outcome.action.draws
      // An action sent is put at or before the moment it was sent, one received at or after
      // the moment it came: what an effect started does not come earlier than it did.
      let milliseconds =
        recorded.fromEffect
        ? Int((recorded.time * 1000).rounded(.up)) : Int((recorded.time * 1000).rounded(.down))
      if let now = clock, milliseconds > now {
        steps.append(.advance(milliseconds: milliseconds - now))
      }
      clock = max(clock ?? milliseconds, milliseconds)
      let after = try loaded.state()
      steps.append(
        recorded.fromEffect
          ? .receive(recorded.action, before: state, after: after)
          : .send(recorded.action, before: state, after: after))
      state = after
    }
  }

  /// Milliseconds as Lua and Swift write seconds: `1`, `0.25`, `1.001`.
  static func seconds(_ milliseconds: Int) -> String {
    var text = String(format: "%.3f", Double(milliseconds) / 1000)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
  }

  /// The HTTP exchanges, with the delay each took (whole milliseconds, rounded down: an answer
  /// never comes later in the test than it did).
  var httpExchanges: [(exchange: RecordedExchange, delay: Int)] {
    exchanges.filter { $0.kind == .http }.map {
      ($0, max(0, Int((($0.end - $0.start) * 1000).rounded(.down))))
    }
  }

  /// The file operations whose answers a test must give: reads, lists and exists checks, and
  /// any operation that failed. Writes that succeeded need nothing but to be accepted.
  var fileAnswers: [RecordedExchange] {
    exchanges.filter { exchange in
      guard exchange.kind == .file else { return false }
      let operation = exchange.request.operation.stringValue ?? ""
      return exchange.error != nil || ["read", "list", "exists"].contains(operation)
    }
  }
}
