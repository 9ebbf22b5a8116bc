import Composable
import Foundation
import IssueReporting
import LuaKit

/// What a test's TestStore methods ask the host for, served: each request names its store and
/// the test's line.
extension LuaTestSession {
  nonisolated(nonsending) func serve(_ request: LuaValue) async throws -> LuaValue {
    let op = request.op.stringValue ?? ""
    if op == "new" { return try await makeStore(request.spec) }
    if op == "expect_failure" { return try await expectFailure(request) }
    if op == "failed" {
      // The test's body failed: said now, before what its after_each hooks find.
      failures.add(describeFailure(request.failure), at: nil)
      return .nil
    }
    guard let id = request.store.intValue, let store = stores[id] else {
      // A store whose TestStore.new failed has no id: said as that, not as a stranger.
      throw LuaTestError(
        request.store == .nil
          ? "\(op): this TestStore was not made: its TestStore.new failed (above)"
          : "\(op): not a TestStore made by TestStore.new")
    }
    store.lastSite = failures.site
    // The TestStore reports at the test's Lua line (LuaTestFailures reads it back), and keeps
    // it for the effects this call starts.
    let line = UInt(max(failures.site.line, 0))
    let file = LuaTestFailures.luaFileID
    switch op {
    case "send":
      // What cannot cross to the feature's VM, named as the REPL names it (not as a value of
      // another VM, which is how it would fail there).
      if let problem = request.action.dataProblem {
        throw LuaTestError("send: action\(problem.path): \(problem.message)")
      }
      let update = request.update
      await store.store.send(
        request.action, assert: try updater(update), fileID: file, filePath: file, line: line,
        column: 0)
      return .nil
    case "receive":
      let update = try updater(request.update)
      switch request.match {
      case let .string(type):
        await store.store.receive(
          where: { $0.type.stringValue == type.description },
          expecting: ["type": .string(type)], timeout: nil, assert: update, fileID: file,
          filePath: file, line: line, column: 0)
      case .table:
        let expected = (try? LuaAction.normalizeNested(request.match)) ?? request.match
        await store.store.receive(
          expected, assert: update, fileID: file, filePath: file, line: line, column: 0)
      case let .function(predicate):
        // A function that raises picks nothing, and its error fails the test at this line: it
        // was taken as "no match" alone, its message never shown (an attacker's finding).
        let raised = RaisedError()
        await store.store.receive(
          where: { [self] action in
            do {
              let answer = try queue.access { vm, _ in
                try vm.call(matches, .function(predicate), action)
              }
              return answer.first == true
            } catch {
              raised.note(error)
              return false
            }
          }, assert: update, fileID: file, filePath: file, line: line, column: 0)
        if let error = raised.first {
          throw LuaTestError("receive: the function given to pick the action raised: \(error)")
        }
      default:
        throw LuaTestError(
          "receive: expected an action type, an action table or a function, got \(request.match.typeName)"
        )
      }
      return .nil
    case "advance":
      guard let duration = request.seconds.doubleValue.flatMap(Seconds.duration) else {
        throw LuaTestError(
          "advance: expected \(Seconds.expected), got \(LuaValue.describeForMessage(request.seconds))"
        )
      }
      // Stopped at the test's time limit (a timer ticking a billion times within the advance
      // keeps it past the limit, which the runner then reports at this line), or after a
      // million wake-ups, whose received actions would fill the memory first.
      let limit = maximumWakeUpsPerAdvance
      let done = await store.clock.advance(
        by: duration, stoppingAt: deadline, maximumWakeUps: limit)
      if !done, let deadline, ContinuousClock.now <= deadline {
        throw LuaTestError(
          "advance: timers fired \(limit) times within this advance of \(Seconds.of(duration)) "
            + "s, and it was stopped there (at \(Seconds.of(store.clock.now.offset)) s of test "
            + "time). To fix, advance by less, or give the timer a longer interval")
      }
      return .nil
    case "finish":
      await store.store.finish(fileID: file, filePath: file, line: line, column: 0)
      return .nil
    case "skip_received_actions":
      await store.store.skipReceivedActions(fileID: file, filePath: file, line: line, column: 0)
      return .nil
    case "skip_in_flight_effects":
      await store.store.skipInFlightEffects(fileID: file, filePath: file, line: line, column: 0)
      return .nil
    case "effects_in_flight":
      let running = await store.store.effectsInFlight()
      return .table(LuaTable(array: running.map { .string(LuaString(Self.describe($0))) }))
    case "state":
      return store.store.state
    default:
      throw LuaTestError("unknown TestStore request \(LuaValue(op))")
    }
  }

  /// `expect_failure(pattern, body)`: its first request marks where the failures stood; the
  /// second, after `body`, removes those since that match the pattern (or one of the list), and
  /// fails for each pattern that none matched.
  nonisolated(nonsending) func expectFailure(_ request: LuaValue) async throws -> LuaValue {
    guard let mark = request.mark.intValue else {
      openMarks.append(failures.count)
      return .integer(failures.count)
    }
    guard mark == openMarks.last, (0...failures.count).contains(mark) else {
      throw LuaTestError("expect_failure: not a mark it gave (\(mark))")
    }
    openMarks.removeLast()
    // Whatever the effects `body` started are doing, what they can do now is done.
    await SingleThreadExecutor.letWorkRun()
    let patterns = request.patterns.tableValue?.sequence ?? []
    var matched = Set<Int>()
    let anyRecorded = failures.count > mark
    var patternError: String?
    let removed = failures.removeFailures(after: mark) { [self] message in
      do {
        let found = try queue.access { vm, _ in
          let find = try vm.load(
            """
            local message, patterns = ...
            local found = {}
            for i, pattern in ipairs(patterns) do
              if string.find(message, pattern) ~= nil then found[#found + 1] = i end
            end
            return found
            """,
            chunkName: "=expect_failure")
          return try vm.call(
            find, .string(LuaString(message)), .table(LuaTable(array: patterns)))
        }
        let indexes = found.first?.tableValue?.sequence.compactMap(\.intValue) ?? []
        matched.formUnion(indexes)
        return !indexes.isEmpty
      } catch {
        switch error as? LuaError {
        case .instructionLimit, .timeLimit, .memoryLimit:
          // A valid pattern that backtracks past every bound over a long message.
          patternError =
            "expect_failure: matching the pattern against a failure's message ran past a "
            + "limit (\(error)). To fix, use a pattern that backtracks less: anchor it, or "
            + "match a shorter, plainer part of the message"
        default:
          // Lua's words, without the position in the matcher's own chunk.
          let words = "\(error)".replacing(#/^expect_failure:[0-9]+: /#, with: "")
          patternError = "expect_failure: the pattern is not a Lua pattern: \(words)"
        }
        return false
      }
    }
    if let patternError { throw LuaTestError(patternError) }
    for (index, pattern) in patterns.enumerated() where !matched.contains(index + 1) {
      failures.add(
        "Expected a failure matching \(pattern), but "
          + (anyRecorded ? "none of those recorded matched" : "none was recorded"),
        at: (request.file.stringValue ?? fileName, request.line.intValue ?? 0))
    }
    return .integer(removed)
  }

  /// An effect as `effects_in_flight` and the TestStore's messages name it:
  /// `effect.every with id "tick"`, `the save of todos.saved.lua`.
  static func describe(_ effect: RunningEffectSummary) -> String {
    var text = effectKindName(effect.kind, prefix: "effect.") ?? "an effect"
    if let id = effect.ids.last { text += " with id \(id)" }
    return text
  }

  /// The test's `function(s) ... end` as the TestStore's `assert` closure.
  func updater(_ value: LuaValue) throws -> ((inout LuaValue) throws -> Void)? {
    switch value {
    case .nil: return nil
    case let .function(update):
      return { [self] state in
        state = try queue.access { vm, _ in
          try vm.call(apply, .function(update), state).first ?? .nil
        }
      }
    default:
      throw LuaTestError(
        "expected a function(state) to describe the expected state, got \(value.typeName)")
    }
  }

  /// The fields `TestStore.new{ ... }` takes.
  static var storeFields: [String] {
    (["answers", "env", "exhaustive", "feature", "now", "state", "uuid"]
      + LuaEffectKinds.requests.map { $0.testField }).sorted()
  }

  nonisolated(nonsending) func makeStore(_ spec: LuaValue) async throws -> LuaValue {
    // A field it does not take is a typo (`htpp = ...`): it was ignored, and the test ran
    // with no fake where one was meant.
    for key in spec.tableValue?.sortedEntries.map(\.key) ?? [] {
      let fields = Self.storeFields
      guard let name = key.stringValue, fields.contains(name) else {
        let near = key.stringValue.flatMap { NearestName.nearest(to: $0, among: fields) }
        throw LuaTestError(
          "TestStore.new: no field \(key.namedInMessage)"
            + (near.map { " (did you mean \($0)?)" } ?? "") + "; its fields are "
            + fields.joined(separator: ", "))
      }
    }
    guard let name = spec.feature.stringValue else {
      throw LuaTestError(
        "TestStore.new: feature is missing: the feature's module (require(\"counter\")) or its "
          + "name")
    }
    let modules = LuaModuleDirectories([directory])
    guard let url = modules.fileURL(ofModule: name) else {
      var message = "TestStore.new: no module \(LuaValue(name)) beside \(fileName)"
      // A file's path given (`notes.lua`, `features/notes.lua`) where `require`'s name is
      // asked: the module it names, said.
      if name.hasSuffix(".lua") {
        let module = name.dropLast(4).replacingOccurrences(of: "/", with: ".")
        if !module.isEmpty, modules.fileURL(ofModule: module) != nil {
          message +=
            ". To fix, name it as require does, without .lua: feature = "
            + "\(LuaValue(module))"
        }
      }
      throw LuaTestError(message)
    }
    // Careful: a bare `nil` here would be `LuaValue.nil`, which is a state, not its absence.
    let state: LuaValue? = spec.state == .nil ? Optional<LuaValue>.none : spec.state
    // Named by its path, as the test file is: an error the reducer raises during the test names
    // the feature's file (and its modules') as the person can open it.
    let featureName = LuaTestPath.display(url)
    let code: [UInt8]
    do { code = try LuaSourceFile.bytes(of: url) } catch {
      throw LuaFeatureError.load(file: featureName, message: "cannot read it: \(error.reason)")
    }
    let feature = try LuaFeature(
      source: LuaString(bytes: code), file: featureName, directory: url.deletingLastPathComponent(),
      namesModulesByPath: true, state: state, env: spec.env == .nil ? [:] : spec.env)
    let clock = ManualClock()
    var dependencies = DependencyValues.test
    dependencies.clock = clock
    for kind in LuaEffectKinds.requests {
      try kind.fake(
        spec[.string(LuaString(kind.testField))], in: self, clock: clock, into: &dependencies)
    }
    // A feature that persists starts from what its files hold, as it does in the host.
    if feature.persistence != nil, spec.files != .nil {
      try await feature.restorePersisted(files: dependencies.files)
    }
    if let uuid = try uuidGenerator(spec.uuid) { dependencies.uuid = uuid }
    if spec.now != .nil {
      guard let now = spec.now.doubleValue, now.isFinite else {
        throw LuaTestError(
          "TestStore.new: now must be seconds since 1970 (a finite number), got "
            + spec.now.description(limit: 80))
      }
      dependencies.date = .constant(Date(timeIntervalSince1970: now))
    } else {
      dependencies.date = Self.unprovidedDate
    }
    guard spec.exhaustive == .nil || spec.exhaustive.boolValue != nil else {
      throw LuaTestError(
        "TestStore.new: exhaustive must be true or false, got "
          + spec.exhaustive.description(limit: 80))
    }
    if spec.answers != .nil { dependencies.environmentTape = try answersTape(spec.answers) }
    let store = TestStore(
      initialState: try feature.state(),
      reducer: { LuaFeatureReducer<LuaValue>(feature: feature, dependencies: $0) },
      dependencies: { $0 = dependencies })
    store.hints = .lua
    // Skipped received actions are no steps: effects' answers are numbered by the steps.
    if let tape = dependencies.environmentTape {
      store.receivedActionsSkipped = { tape.uncount($0) }
    }
    if spec.exhaustive == false { store.exhaustivity = .off }
    let id = (stores.keys.max() ?? 0) + 1
    stores[id] = LuaTestStore(store: store, clock: clock, lastSite: failures.site)
    return .integer(id)
  }
}

/// The first error a callback raised, kept for after the call that ran it.
private final class RaisedError: @unchecked Sendable {
  private let lock = NSLock()
  private var error: (any Error)?

  var first: (any Error)? { lock.withLock { error } }

  func note(_ error: any Error) {
    lock.withLock { if self.error == nil { self.error = error } }
  }
}
