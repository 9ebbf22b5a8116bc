import Composable
import Foundation
import LuaKit

/// Runs the async effects of a Lua feature: `effect.run` coroutines, whose `send`, `sleep` and
/// `http` calls yield here, and `effect.http` requests. Results go back as actions; failures
/// too (`ok = false`), or, for an error in the coroutine's own code, as a reported error.
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

  private func fail(_ error: LuaError) {
    onError(.effect(action: describeOrigin(), error: error))
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
    defer {
      if closes {
        do throws(LuaError) { try feature.close(coroutine, dependencies: dependencies) } catch {
          fail(error)
        }
      }
    }
    var arguments: [LuaValue] = []
    while !Task.isCancelled {
      let resumption: LuaResumption
      do {
        resumption = try feature.resume(coroutine, with: arguments, dependencies: dependencies)
      } catch {
        fail(error)
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
            fail(
              .conversion(
                path: "send(action)" + problem.path,
                message: "\(problem.message) (\(LuaAction.dataRule))"))
            return
          }
          let wrapped = try feature.wrap(action, with: wrappers)
          if let problem = wrapped.dataProblem {  // a wrapper (`map_effect`) added it
            fail(
              .conversion(
                path: "send(action), wrapped" + problem.path,
                message: "\(problem.message) (\(LuaAction.dataRule))"))
            return
          }
          await send(wrapped)
        } catch let error as LuaAction.Malformed {
          fail(.conversion(path: "send(action)", message: error.message))
          return
        } catch {
          fail(error as? LuaError ?? .runtime(message: "\(error)", traceback: ""))
          return
        }
      case "sleep":
        guard let duration = request["seconds"].doubleValue.flatMap(Seconds.duration) else {
          fail(
            .conversion(
              path: "sleep(seconds)",
              message:
                "expected \(Seconds.expected), got \(LuaValue.describeForMessage(request["seconds"]))"
            ))
          return
        }
        do { try await clock.sleep(for: duration) } catch {
          return  // cancelled
        }
      case "http":
        guard let response = await perform(request["request"]) else { return }
        arguments = [response]
      case "file":
        guard let result = await file(request["operation"].stringValue ?? "", request["request"])
        else { return }
        arguments = [result]
      default:
        fail(
          .runtime(
            message:
              "an effect.run coroutine yielded \(request), which is not send, sleep, http or file",
            traceback: ""))
        return
      }
    }
  }

  /// `effect.http`: performs the request and sends the response as the `response` action.
  func request(
    _ request: HTTPRequest, responseType: String, wrappers: [LuaReference], send: Send<LuaValue>
  ) async {
    guard var response = await perform(request) else { return }
    response["type"] = .string(LuaString(responseType))
    do { await send(try feature.wrap(response, with: wrappers)) } catch {
      fail(error)
    }
  }

  /// `effect.file.*`: performs the operation (its request checked by the interpreter, its
  /// path made a `DataPath` there) and sends the result as the `response` action, if there is
  /// one.
  func fileOperation(
    _ operation: LuaFileOperation, at path: DataPath, _ request: LuaValue, responseType: String?,
    wrappers: [LuaReference], send: Send<LuaValue>
  ) async {
    guard var result = await file(operation, at: path, request) else { return }
    guard let responseType else {
      // Nothing hears back: a failure is reported, as a reducer's error would be.
      if result["ok"] == false {
        fail(
          .runtime(
            message: "effect.file.\(operation.rawValue) of \(request["path"]) failed: "
              + "\(result["error"])",
            traceback: ""))
      }
      return
    }
    result["type"] = .string(LuaString(responseType))
    do { await send(try feature.wrap(result, with: wrappers)) } catch {
      fail(error)
    }
  }

  /// `file.read(path)` and friends inside `effect.run`: the request as the coroutine gave it,
  /// every field checked here. `{ ok = true, ... }` or `{ ok = false, error }`; nil when
  /// cancelled.
  func file(_ operation: String, _ request: LuaValue) async -> LuaValue? {
    func failed(_ message: String) -> LuaValue {
      ["ok": false, "error": .string(LuaString(message))]
    }
    guard let known = LuaFileOperation(rawValue: operation) else {
      return failed(
        "\(LuaValue(operation)) is no file operation: expected \(LuaFileOperation.listed)")
    }
    let field = "file.\(operation): path"
    guard case let .string(bytes) = request["path"] else {
      return failed("\(field): expected a string, got \(request["path"].typeName)")
    }
    do {
      return await file(known, at: try DataPath(validating: bytes.bytes), request)
    } catch {
      return failed("\(field): \(error)")
    }
  }

  /// Performs `operation` on `path`: `{ ok = true, contents | entries | exists }` or
  /// `{ ok = false, error }`; nil when cancelled.
  private func file(
    _ operation: LuaFileOperation, at path: DataPath, _ request: LuaValue
  ) async -> LuaValue? {
    func contents() throws -> [UInt8] {
      guard case let .string(text) = request["contents"] else {
        throw FileClientError(
          "file.\(operation.rawValue): contents: expected a string, got "
            + request["contents"].typeName)
      }
      return text.bytes
    }
    do {
      var result: LuaValue = ["ok": true]
      switch operation {
      case .read:
        let bytes = try await files.read(path)
        result["contents"] = .string(LuaString(bytes: bytes))
        if request["json"] == true { result["data"] = try feature.decodeJSON(bytes) }
      case .write: try await files.write(path, try contents())
      case .append: try await files.append(path, try contents())
      case .list:
        let entries = try await files.list(path).map { LuaValue.string(LuaString($0)) }
        result["entries"] = .table(LuaTable(array: entries))
      case .remove: try await files.remove(path)
      case .exists: result["exists"] = .boolean(try await files.exists(path))
      }
      if Task.isCancelled { return nil }
      return result
    } catch {
      if Task.isCancelled || error is CancellationError { return nil }
      // A JSON error is the decoder's message alone: there is no Lua code to trace back.
      let message = (error as? LuaError)?.message ?? "\(error)"
      return ["ok": false, "error": .string(LuaString(message))]
    }
  }

  /// The response to the request table of `http.get`/`http.request` inside `effect.run` as a
  /// Lua table, or nil when the effect was cancelled; a request that cannot be made answers
  /// `ok = false`, naming the field.
  func perform(_ value: LuaValue) async -> LuaValue? {
    let request: HTTPRequest
    do { request = try LuaHTTP.request(from: value, encodeJSON: feature.encodeJSON) } catch {
      return ["ok": false, "error": .string(LuaString(error.description))]
    }
    return await perform(request)
  }

  /// The response to `request` as a Lua table, or nil when the effect was cancelled.
  func perform(_ request: HTTPRequest) async -> LuaValue? {
    do {
      let response = try await http.perform(request)
      if Task.isCancelled { return nil }
      return LuaHTTP.table(of: response, decodeJSON: feature.decodeJSON)
    } catch {
      if Task.isCancelled || error is CancellationError { return nil }
      return ["ok": false, "error": .string(LuaString("\(error)"))]
    }
  }
}
