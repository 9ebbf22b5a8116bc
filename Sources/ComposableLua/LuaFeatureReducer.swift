import Composable
import Foundation
import IssueReporting
import LuaKit

/// A Lua feature as a `Reducer` of the runtime: it runs in any `Store` or `TestStore`, next to
/// Swift reducers, and its effects run on the store's clock and dependencies.
///
/// `State` is what the store holds of the feature's state: a `LuaFeatureHandle` in an app (the
/// state stays in Lua and costs nothing per action), a `LuaValue` snapshot or a decoded
/// `Codable` type in tests (read after every action, so that the TestStore can compare).
public struct LuaFeatureReducer<State: Sendable>: Reducer {
  /// A Lua feature's actions: tables with a string `type`, or bare strings for `{ type = s }`.
  public typealias Action = LuaValue

  /// The feature this reducer runs.
  public let feature: LuaFeature
  /// Reads the state after an action; nil for a store that holds a `LuaFeatureHandle` to this
  /// feature, which stays as it is (no read, and no retain of the feature, per action).
  let readState: (@Sendable (LuaFeature) throws(LuaFeatureError) -> State)?
  /// What each action's step is given: this reducer's dependencies (`env` answers from them
  /// during the call, so two reducers over one feature each use their own) and where its
  /// effects' later failures go. Made once, with the reducer.
  private(set) var context: LuaStepContext
  /// This reducer's dependencies, handed to each call.
  var dependencies: LuaFeatureDependencies { context.dependencies! }
  /// Where an action the feature refused, and a failure of its effects, are reported.
  var onError: @Sendable (LuaFeatureError) -> Void { context.onError }
  /// For a store that holds a copy of the state: the copy this reducer last gave it, and how
  /// to write a different one back into Lua. A Swift parent may write to its Lua child's state
  /// between actions; the child's next action must start from what the parent wrote.
  let writeBack: StateWriteBack<State>?
  /// The action to send when the feature refuses one (`sendingOnFailure`), after the failure.
  var failureAction: (@Sendable (LuaFeatureError) -> LuaValue?)?
  /// Whether the store holds a copy of the state (`readState` or `writeBack` set): a Bool, as a
  /// look at those optionals of a generic type goes through their metadata on every action.
  private let holdsCopy: Bool

  /// A reducer whose store holds what `readState` reads after every action (a decoded type, say).
  /// The store's copy is never written back into Lua. A refused action goes to `onError`, which
  /// reports an issue by default.
  ///
  /// ```swift
  /// struct Counter: Decodable, Sendable { var count: Int }
  /// let reducer = LuaFeatureReducer<Counter>(
  ///   feature: feature, dependencies: .live,
  ///   readState: { (feature) throws(LuaFeatureError) in try feature.decodeState(Counter.self) })
  /// ```
  public init(
    feature: LuaFeature, dependencies: DependencyValues,
    readState: @escaping @Sendable (LuaFeature) throws(LuaFeatureError) -> State,
    onError: @escaping @Sendable (LuaFeatureError) -> Void = LuaFeatureReducer.reportError
  ) {
    self.init(
      feature: feature, dependencies: dependencies, readState: readState, writeBack: nil,
      onError: onError)
  }

  init(
    feature: LuaFeature, dependencies: DependencyValues,
    readState: (@Sendable (LuaFeature) throws(LuaFeatureError) -> State)?,
    writeBack: StateWriteBack<State>?,
    onError: @escaping @Sendable (LuaFeatureError) -> Void = LuaFeatureReducer.reportError
  ) {
    self.feature = feature
    self.readState = readState
    self.context = LuaStepContext(
      dependencies: LuaFeatureDependencies(dependencies), onError: onError)
    self.writeBack = writeBack
    self.holdsCopy = readState != nil || writeBack != nil
  }

  public func reduce(into state: inout State, action: LuaValue) -> Effect<LuaValue> {
    // A store that holds a handle (an app's) goes straight to the step: nothing here depends
    // on `State`, so none of it runs through its metadata.
    guard holdsCopy else {
      let outcome = feature.step(action, context)
      return outcome.failed ? failed(outcome, action: action).effect : outcome.effect
    }
    return reduce(into: &state, action: action, context).effect
  }

  /// `reduce`, with the step's whole outcome: what the reducer returned, whether it wrote,
  /// and, with `readingChanges`, where it changed the state (read from its transaction, no copy
  /// of the state compared). For a host that records a session and shows each action (the
  /// REPL, `printChanges`). A refused action's outcome holds its error, reported to `onError`
  /// too, and its effect is `Effect.failure`.
  public func step(
    into state: inout State, action: LuaValue, readingChanges: Bool
  ) -> LuaStepOutcome {
    let context = LuaStepContext(
      dependencies: context.dependencies, onError: context.onError, readsChanges: readingChanges)
    return reduce(into: &state, action: action, context)
  }

  private func reduce(
    into state: inout State, action: LuaValue, _ context: LuaStepContext
  ) -> LuaStepOutcome {
    // Before the write-back: the copy a refresh replaces is not written over what Lua holds.
    if action == luaFeatureRefreshAction { return refreshed(&state) }
    if let writeBack {
      do throws(LuaFeatureError) { try writeBack.writeIfChanged(state, into: feature) } catch {
        return failed(LuaStepOutcome(failure: error), action: action)
      }
    }
    var outcome = feature.step(action, context)
    guard !outcome.failed else { return failed(outcome, action: action) }
    if let readState {
      do throws(LuaFeatureError) {
        state = try readState(feature)
        writeBack?.gave(state)
      } catch {
        outcome.error = error
        outcome.effect = .failure(error, sending: nil)
        return failed(outcome, action: action)
      }
    }
    return outcome
  }

  /// The action that reads the feature's state into the store's copy without calling Lua: what
  /// an app sends (through its parent's action for the child) right after a hot reload whose
  /// `migrate(state)` changed the state, so that a Swift parent's copy shows it at once. Until
  /// then the copy is stale: a child action that comes first runs on the migrated state if the
  /// parent left its copy as it was, but a copy the parent changed is written back over it (as
  /// the parent's writes always are). The type `composable.refresh` is reserved: under a store
  /// that holds a `LuaFeatureHandle` (no copy), it reaches the feature as any action.
  public static var refreshAction: LuaValue { luaFeatureRefreshAction }

  private func refreshed(_ state: inout State) -> LuaStepOutcome {
    guard let readState else { return LuaStepOutcome() }
    do throws(LuaFeatureError) {
      state = try readState(feature)
      writeBack?.gave(state)
      return LuaStepOutcome()
    } catch {
      return failed(LuaStepOutcome(failure: error))
    }
  }

  /// An action the feature refused: reported to `onError`, and its effect `Effect.failure`, so
  /// that what composes this reducer does not go on as if it had succeeded (see
  /// `CombineReducers`), with the action `sendingOnFailure` makes of it. Apart from `reduce`,
  /// which stays as small as the actions that succeed need.
  @inline(never)
  private func failed(_ outcome: LuaStepOutcome, action: LuaValue? = nil) -> LuaStepOutcome {
    guard let error = outcome.error else { return outcome }
    onError(error)
    var outcome = outcome
    // The failure action goes through the parent's Scope to this child too; a child that
    // refuses it would be sent another, and another, for ever. A refusal of an action made for
    // a refusal sends nothing more (the refusal itself is reported as any other).
    var next = failureAction?(error)
    if let made = next {
      if let action, feature.refusals.wasMadeForARefusal(action) {
        next = nil
      } else {
        feature.refusals.note(made)
      }
    }
    outcome.effect = .failure(error, sending: next)
    return outcome
  }

  /// This reducer, sending `action(error)` (when not nil) after an action the feature refused:
  /// how a parent learns of it and reacts (say, `{ type = "refused", reason = ... }`, which a
  /// Swift parent receives through its `Scope` as any action of the child). The refusal itself
  /// still stops what composes this reducer (`Effect.failure`). The child receives that action
  /// too (it is an action of the child); if it refuses it, no further one is sent.
  public func sendingOnFailure(
    _ action: @escaping @Sendable (LuaFeatureError) -> LuaValue?
  ) -> Self {
    var copy = self
    copy.failureAction = action
    return copy
  }

  /// Reports the error as an issue: a test fails, at the line of its call that the error came
  /// from (`TestCallSite`), and an app logs it. The state was rolled back.
  public static func reportError(_ error: LuaFeatureError) {
    // A save in a test that gave no files: the file client reported that, naming the fix.
    if error.isStateSave, error.description.contains(FileClient.notProvidedInTest) { return }
    guard let site = TestCallSite.current else { return reportIssue(error.description) }
    reportIssue(
      error.description, fileID: site.fileID, filePath: site.filePath, line: site.line,
      column: site.column)
  }
}

/// What an app's store holds of a Lua feature's state: a handle that reads it on demand.
public struct LuaFeatureHandle: Sendable {
  /// The feature whose state this handle reads.
  public let feature: LuaFeature

  /// A handle on the state of `feature`.
  ///
  /// ```swift
  /// let handle = LuaFeatureHandle(feature: feature)
  /// let count = try handle.snapshot().count
  /// ```
  public init(feature: LuaFeature) { self.feature = feature }

  /// A snapshot of the state now (`LuaFeature.state()`).
  public func snapshot() throws(LuaFeatureError) -> LuaValue { try feature.state() }

  /// The state now, decoded into `type` (`LuaFeature.decodeState(_:)`).
  public func decode<State: Decodable>(_ type: State.Type) throws(LuaFeatureError) -> State {
    try feature.decodeState(type)
  }
}

extension LuaFeatureReducer where State == LuaValue {
  /// A reducer whose store holds a snapshot of the state after every action (for tests, and
  /// for a Lua child of a Swift parent, whose writes to it reach Lua before the next action).
  ///
  /// ```swift
  /// let store = Store(
  ///   initialState: try feature.state(),
  ///   reducer: { LuaFeatureReducer<LuaValue>(feature: feature, dependencies: $0) })
  /// ```
  public init(feature: LuaFeature, dependencies: DependencyValues) {
    self.init(
      feature: feature, dependencies: dependencies,
      readState: { (feature) throws(LuaFeatureError) in try feature.state() },
      writeBack: feature.writeBacks.writeBack(for: LuaValue.self) {
        StateWriteBack(isSame: ==) { (state, feature) throws(LuaFeatureError) in
          try feature.setState(state)
        }
      })
  }
}

/// `LuaFeatureReducer.refreshAction`, made once: a generic type cannot store it, and the check
/// every action of a store that holds a copy makes should not build a table to compare with.
private let luaFeatureRefreshAction: LuaValue = ["type": "composable.refresh"]

/// The copy of the state a reducer last gave its store, and how to write another back. One per
/// feature and state type (`LuaFeatureWriteBacks`): every reducer over the feature shares it, so
/// a reducer made again for every action (in a `body`) and the screens of a stack that one
/// feature runs all compare with the copy last given out, whichever gave it.
final class StateWriteBack<State: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var given: State?  // under `lock`
  private let isSame: @Sendable (State, State) -> Bool
  private let write: @Sendable (State, LuaFeature) throws(LuaFeatureError) -> Void

  init(
    isSame: @escaping @Sendable (State, State) -> Bool,
    write: @escaping @Sendable (State, LuaFeature) throws(LuaFeatureError) -> Void
  ) {
    self.isSame = isSame
    self.write = write
  }

  /// Writes `state` into the feature when it is not what was last given out, or when nothing
  /// was given out yet (the store's first copy came from its parent, which may hold any state:
  /// one of several screens that one feature runs, say).
  func writeIfChanged(_ state: State, into feature: LuaFeature) throws(LuaFeatureError) {
    if let given = lock.withLock({ given }), isSame(given, state) { return }
    try write(state, feature)
    gave(state)
  }

  func gave(_ state: State) { lock.withLock { given = state } }
}

/// The actions a feature's reducers made for its refusals (`sendingOnFailure`), the last few:
/// a refusal of one of them sends no other (see `LuaFeatureReducer.failed`).
final class LuaFeatureRefusals: @unchecked Sendable {
  private let lock = NSLock()
  private var made: [LuaValue] = []  // under `lock`, the last 8

  func note(_ action: LuaValue) {
    lock.withLock {
      made.append(action)
      if made.count > 8 { made.removeFirst() }
    }
  }

  func wasMadeForARefusal(_ action: LuaValue) -> Bool { lock.withLock { made.contains(action) } }
}

/// A feature's `StateWriteBack`s, by the type of state they hold.
final class LuaFeatureWriteBacks: @unchecked Sendable {
  private let lock = NSLock()
  private var byType: [ObjectIdentifier: AnyObject] = [:]  // under `lock`

  /// The write-back for `State`, made by `make` the first time.
  func writeBack<State>(
    for type: State.Type, make: () -> StateWriteBack<State>
  ) -> StateWriteBack<State> {
    lock.withLock {
      if let existing = byType[ObjectIdentifier(type)] as? StateWriteBack<State> {
        return existing
      }
      let made = make()
      byType[ObjectIdentifier(type)] = made
      return made
    }
  }
}

extension LuaFeatureReducer where State == LuaFeatureHandle {
  /// A reducer whose store holds a handle: the state stays in Lua.
  ///
  /// ```swift
  /// let store = Store(
  ///   initialState: LuaFeatureHandle(feature: feature),
  ///   reducer: { LuaFeatureReducer<LuaFeatureHandle>(feature: feature, dependencies: $0) })
  /// ```
  public init(
    feature: LuaFeature, dependencies: DependencyValues,
    onError: @escaping @Sendable (LuaFeatureError) -> Void = LuaFeatureReducer.reportError
  ) {
    self.init(
      feature: feature, dependencies: dependencies, readState: nil, writeBack: nil,
      onError: onError)
  }
}

extension TestStore where State == LuaValue, Action == LuaValue {
  /// A TestStore over the Lua feature at `path`, its state compared as `LuaValue` snapshots.
  /// `initialState` replaces what the feature's `initial_state()` gives.
  ///
  /// ```swift
  /// let store = try TestStore(feature: "counter.lua", initialState: ["count": 0])
  /// await store.send("increment") { $0.count = 1 }
  /// ```
  public convenience init(
    feature path: String, initialState: LuaValue? = nil, env: LuaValue = [:],
    dependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) throws(LuaFeatureError) {
    let feature = try LuaFeature(
      contentsOf: URL(fileURLWithPath: path), state: initialState, env: env)
    let start = try feature.state()
    self.init(
      initialState: start,
      reducer: { LuaFeatureReducer<LuaValue>(feature: feature, dependencies: $0) },
      dependencies: dependencies, fileID: fileID, filePath: filePath, line: line, column: column)
    // `receive("loaded")` expects `{ type = "loaded" }`, as `send("loaded")` sends it.
    expandExpectedAction = { (try? LuaAction.normalize($0)) ?? $0 }
    // Skipped received actions are no steps: effects' answers are numbered by the steps.
    if let tape = self.dependencies.environmentTape {
      receivedActionsSkipped = { tape.uncount($0) }
    }
  }
}
