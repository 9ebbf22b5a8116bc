import Composable
import Foundation
import LuaKit

/// Runs the async effects of a Lua feature: `effect.run` coroutines, whose `send`, `sleep`,
/// `http` and `file` calls yield here. What the request kinds do (`effect.http`, `effect.file`
/// and their host calls) is in their files under Effects/, as extensions of this runner.
/// Results go back as actions; failures too (`ok = false`), or, for an error in the
/// coroutine's own code, as a reported error.
struct LuaEffectRunner: Sendable {
  let feature: LuaFeature
  /// The dependencies of the store that runs the effect: its clock, HTTP and files, and what
  /// `env` answers while the coroutine runs.
  let dependencies: LuaFeatureDependencies
  var clock: any Clock<Duration> { dependencies.values.clock }
  var http: HTTPClient { dependencies.values.http }
  var files: FileClient { dependencies.values.files }
  let onError: @Sendable (LuaFeatureError) -> Void
  /// The action whose reducer returned the effect, for messages.
  let describeOrigin: @Sendable () -> String
  /// That action's number on its store's tape, under which `env` answers the coroutine (see
  /// `LuaEnvironmentTape.beginAction`); nil when the store has no tape.
  let origin: Int?

  func fail(_ error: LuaError) {
    onError(.effect(action: describeOrigin(), error: error))
  }

  /// An effect's `failure`, and then its `<close>` handlers' error when it was closed.
  static func failure(_ failure: LuaError, thenClosing closing: LuaError) -> LuaError {
    let after = "; then closing its to-be-closed variables failed: \(closing.message)"
    switch failure {
    case let .runtime(message, traceback):
      return .runtime(message: message + after, traceback: traceback)
    case let .conversion(path, message): return .conversion(path: path, message: message + after)
    default: return .runtime(message: failure.message + after, traceback: "")
    }
  }

  /// Drives the coroutine of `body` until it returns, fails, or the effect is cancelled.
  func run(_ body: LuaReference, wrappers: [LuaReference], send: Send<LuaValue>) async {
    let coroutine: LuaReference
    do { coroutine = try feature.makeCoroutine(body) } catch {
      onError(error)
      return
    }
    // Ended any way but by returning (cancelled, failed, or stopped here for what it yielded),
    // the coroutine is closed, so its `<close>` variables are: as `coroutine.wrap` closes a
    // coroutine that fails, and as a cancelled Swift task runs its `defer`s. Not after a limit
    // stopped it (as `coroutine.close` then does not): its handlers would run on past the
    // limit.
    var closes = true
    // Its failure, said once the coroutine is closed: a `<close>` handler that fails too (one
    // that sleeps, which a failed coroutine cannot) is said with it, as one effect's failure,
    // not as a second effect's.
    var failure: LuaError?
    defer {
      var closing: LuaError?
      if closes {
        do throws(LuaError) {
          try feature.close(coroutine, dependencies: dependencies, origin: origin)
        } catch {
          closing = error
        }
      }
      switch (failure, closing) {
      case let (first?, second?): fail(Self.failure(first, thenClosing: second))
      case let (first?, nil): fail(first)
      case let (nil, second?): fail(second)
      case (nil, nil): break
      }
    }
    var arguments: [LuaValue] = []
    while !Task.isCancelled {
      let resumption: LuaResumption
      do {
        resumption = try feature.resume(
          coroutine, with: arguments, dependencies: dependencies, origin: origin)
      } catch {
        failure = error
        switch error {
        case .instructionLimit, .timeLimit, .memoryLimit: closes = false
        default: break
        }
        return
      }
      guard case let .yielded(values) = resumption else {
        closes = false
        return
      }
      let request = values.first ?? .nil
      arguments = []
      switch request["op"].stringValue {
      case "send":
        do {
          let action = try LuaAction.normalize(request["action"])
          if let problem = action.dataProblem {
            failure =
              LuaError.conversion(
                path: "send(action)" + problem.path,
                message: "\(problem.message) (\(LuaAction.dataRule))")
            return
          }
          let wrapped = try feature.wrap(action, with: wrappers)
          if let problem = wrapped.dataProblem {  // a wrapper (`map_effect`) added it
            failure =
              LuaError.conversion(
                path: "send(action), wrapped" + problem.path,
                message: "\(problem.message) (\(LuaAction.dataRule))")
            return
          }
          await send(wrapped)
        } catch let error as LuaAction.Malformed {
          failure = LuaError.conversion(path: "send(action)", message: error.message)
          return
        } catch {
          failure = error as? LuaError ?? .runtime(message: "\(error)", traceback: "")
          return
        }
      case "sleep":
        guard let duration = request["seconds"].doubleValue.flatMap(Seconds.duration) else {
          failure =
            LuaError.conversion(
              path: "sleep(seconds)",
              message:
                "expected \(Seconds.expected), got \(LuaValue.describeForMessage(request["seconds"]))"
            )
          return
        }
        do { try await clock.sleep(for: duration) } catch {
          return  // cancelled
        }
      case let op:
        // The request kinds' host calls (`http.get`, `file.read`...), answered by their kinds.
        guard let kind = op.flatMap({ LuaEffectKinds.byHostCall[$0] }) else {
          failure =
            LuaError.runtime(
              message: "an effect.run coroutine yielded \(request), which is not "
                + Self.hostCallsListed,
              traceback: "")
          return
        }
        guard let answer = await kind.answer(request, runner: self) else { return }
        arguments = [answer]
      }
    }
  }

  /// "send, sleep, http or file": what a coroutine may yield, for messages.
  static let hostCallsListed =
    (["send", "sleep"] + LuaEffectKinds.requests.dropLast().map { $0.hostCall }).joined(
      separator: ", ") + " or " + (LuaEffectKinds.requests.last?.hostCall ?? "sleep")
}
