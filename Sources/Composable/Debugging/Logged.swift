import CustomDump
import Foundation
import Logging

extension Reducer {
  /// Reports through swift-log how long each action took to reduce, and the life of every
  /// effect it started: start, each action it sent, finish or cancel.
  ///
  /// ```swift
  /// let store = Store(
  ///   initialState: Feature.State(),
  ///   reducer: Feature().logged(to: Logger(label: "feature"), level: .info))
  /// ```
  public func logged(to logger: Logger, level: Logger.Level = .debug) -> LoggedReducer<Self> {
    LoggedReducer(base: self, logger: logger, level: level)
  }
}

/// The reducer `logged(to:level:)` returns. It runs `Base` unchanged, logs how long each action
/// took to reduce, and adds hooks to the effect it returns that log each async part's start,
/// every action it sends, and its end (finished or cancelled).
public struct LoggedReducer<Base: Reducer>: Reducer {
  let base: Base
  let logger: Logger
  let level: Logger.Level

  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let start = ContinuousClock.now
    let effect = base.reduce(into: &state, action: action)
    let elapsed = ContinuousClock.now - start
    let name = describe(action)
    let logger = self.logger
    let level = self.level
    logger.log(
      level: level, "reduced \(name)",
      metadata: ["action": "\(name)", "duration_us": "\(microseconds(elapsed))"])
    return effect.instrumented(
      onStart: { logger.log(level: level, "effect started", metadata: ["action": "\(name)"]) },
      onOutput: { output in
        logger.log(level: level, "effect sent \(describe(output))", metadata: ["action": "\(name)"])
      },
      onEnd: { cancelled in
        logger.log(
          level: level, cancelled ? "effect cancelled" : "effect finished",
          metadata: ["action": "\(name)"])
      })
  }
}

private func describe<Value>(_ value: Value) -> String {
  var text = ""
  customDump(value, to: &text, maxDepth: 2)
  return text.replacingOccurrences(of: "\n", with: " ")
}

private func microseconds(_ duration: Duration) -> String {
  String(format: "%.1f", Seconds.of(duration) * 1e6)
}
