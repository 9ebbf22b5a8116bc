import Clocks

/// Runs a feature: holds its state, reduces actions, runs the effects the reducer returns.
///
/// Each store is an actor, so it has its own serial executor: many stores run on many cores,
/// and no state is shared without isolation. `send` reduces at once (actions fed back by
/// `Effect.send` are reduced right after, in order) and returns a handle on the effects it
/// started. Actions from running effects come back in the order each effect sends them; a
/// cancelled effect delivers nothing.
public actor Store<State: Sendable, Action: Sendable> {
  // The send path is cheap for two reasons. It touches no generic metadata: plain flags
  // stand for "the queue has actions" and "someone observes", where `isEmpty` on the tuple
  // queue and on the dictionary of closures looked up their types' metadata on every send
  // (most of a send's time). And the state and flags it uses skip the runtime's dynamic
  // exclusivity checks, which the actor makes redundant (they were a quarter of a send). It is
  // inlinable so that a sender may specialize it.

  /// The current state.
  public var state: State { currentState }
  @usableFromInline @exclusivity(unchecked) var currentState: State
  @usableFromInline let reducer: any Reducer<State, Action>
  /// Hooks for the TestStore, which runs on this same store rather than a copy of it.
  @usableFromInline nonisolated let instrumentation: StoreInstrumentation<State, Action>?
  /// Where effects run (`DependencyValues.effectExecutor`); nil for the global executor.
  private let effectExecutor: (any TaskExecutor)?

  private var queue: [(action: Action, fromEffect: Bool)] = [] {
    didSet { hasQueued = !queue.isEmpty }
  }
  /// `!queue.isEmpty`, kept as a plain flag for the inlined send path.
  @usableFromInline @exclusivity(unchecked) var hasQueued = false
  @usableFromInline @exclusivity(unchecked) var isSending = false

  private var nextToken = 0
  private var running: [Int: RunningEffect] = [:]
  private var tokensByID: [EffectID: Set<Int>] = [:]
  private var throttles: [EffectID: ThrottleState] = [:]

  private var nextObserver = 0
  private var observers: [Int: @Sendable (State) -> Void] = [:] {
    didSet { hasObservers = !observers.isEmpty }
  }
  @usableFromInline @exclusivity(unchecked) var hasObservers = false

  /// With an `effectExecutor`, every effect's task prefers it (a `SingleThreadExecutor` makes
  /// "everything that can run has run" knowable, as the REPL's `:advance` needs).
  ///
  /// ```swift
  /// let store = Store(initialState: Counter.State(), reducer: Counter())
  /// await store.send(.increment)
  /// ```
  public init(
    initialState: State, reducer: sending some Reducer<State, Action>,
    effectExecutor: (any TaskExecutor)? = nil
  ) {
    self.currentState = initialState
    self.reducer = reducer
    self.instrumentation = nil
    self.effectExecutor = effectExecutor
  }

  /// A store whose reducer is built from dependencies: the live ones, changed by `dependencies`.
  ///
  /// ```swift
  /// let store = Store(initialState: Search.State()) { dependencies in
  ///   Search(http: dependencies.http, clock: dependencies.clock)
  /// }
  /// ```
  public init<R: Reducer<State, Action>>(
    initialState: State,
    dependencies: (inout DependencyValues) -> Void = { _ in },
    reducer: (DependencyValues) -> sending R
  ) {
    var values = DependencyValues.live
    dependencies(&values)
    self.currentState = initialState
    self.reducer = reducer(values)
    self.instrumentation = nil
    self.effectExecutor = values.effectExecutor
  }

  init(
    initialState: State, reducer: sending any Reducer<State, Action>,
    instrumentation: StoreInstrumentation<State, Action>, effectExecutor: (any TaskExecutor)?
  ) {
    self.currentState = initialState
    self.reducer = reducer
    self.instrumentation = instrumentation
    self.effectExecutor = effectExecutor
  }

  // MARK: Sending

  /// Reduces `action` now, then any actions it fed back, and starts their effects.
  ///
  /// ```swift
  /// let task = await store.send(.refreshButtonTapped)
  /// await task.finish()
  /// ```
  @discardableResult @inlinable
  public func send(_ action: Action) -> StoreTask {
    enqueue(action, fromEffect: false)
  }

  /// Runs `body` on this store's executor: several sends, or a read and a send, with no other
  /// work in between.
  public func withIsolation<Result: Sendable>(
    _ body: @Sendable (isolated Store) throws -> Result
  ) rethrows -> Result {
    try body(self)
  }

  /// An action from a running effect. Dropped when that effect has been cancelled: the check
  /// runs here, on the store, so a cancel and a delivery cannot cross.
  func receive(_ action: Action) {
    guard !Task.isCancelled else { return }
    _ = enqueue(action, fromEffect: true)
  }

  @inlinable
  func enqueue(_ action: Action, fromEffect: Bool) -> StoreTask {
    guard !isSending else {
      appendToQueue(action, fromEffect: fromEffect)
      return StoreTask(tasks: [])
    }
    isSending = true
    var tasks: [Task<Void, Never>] = []
    // The action itself goes straight to the reducer; the queue is only for the actions that
    // `Effect.send` feeds back, which most sends have none of.
    reduce(action, fromEffect: fromEffect, tasks: &tasks)
    if hasQueued { reduceQueue(tasks: &tasks) }
    isSending = false
    if hasObservers { notifyObservers() }
    return StoreTask(tasks: tasks)
  }

  @usableFromInline
  func appendToQueue(_ action: Action, fromEffect: Bool) {
    queue.append((action, fromEffect))
  }

  @usableFromInline
  func reduceQueue(tasks: inout [Task<Void, Never>]) {
    var index = 0
    while index < queue.count {
      let (action, fromEffect) = queue[index]
      index += 1
      reduce(action, fromEffect: fromEffect, tasks: &tasks)
    }
    queue.removeAll(keepingCapacity: true)
  }

  @usableFromInline
  func notifyObservers() {
    for observer in observers.values { observer(state) }
  }

  @inlinable
  func reduce(_ action: Action, fromEffect: Bool, tasks: inout [Task<Void, Never>]) {
    let effect = reducer.reduce(into: &currentState, action: action)
    if let instrumentation { instrumentation.didReduce(action, fromEffect, state) }
    if !effect.isNone { start(effect, tasks: &tasks) }
  }

  @usableFromInline
  func start(_ effect: Effect<Action>, tasks: inout [Task<Void, Never>]) {
    start(effect, ids: [], tasks: &tasks)
  }

  // MARK: Effects

  private struct RunningEffect {
    let task: Task<Void, Never>
    let ids: [EffectID]
    let kind: String?
    /// A part a concatenation started: its own task stands for it in what is listed.
    let nested: Bool
  }

  private struct ThrottleState {
    /// The clock all times of this id are measured on. `AnyClock` counts instants from its own
    /// creation, and each throttled effect wraps the clock anew, so one wrapper is kept per id.
    let clock: AnyClock<Duration>
    var lastStart: AnyClock<Duration>.Instant?
    var pending: Task<Void, Never>?
  }

  /// Starts `effect` under the cancellation `ids` around it. `kind` is the outermost name an
  /// operator gave it (`debounce`, `http`, ...); `nested` marks the parts a concatenation
  /// starts, which its own task already stands for in what the TestStore sees.
  private func start(
    _ effect: Effect<Action>, ids: [EffectID], kind: String? = nil, nested: Bool = false,
    tasks: inout [Task<Void, Never>]
  ) {
    switch effect.operation {
    case .none:
      return
    case let .send(action):
      queue.append((action, true))
    case let .merge(effects):
      for effect in effects {
        start(effect, ids: ids, kind: kind, nested: nested, tasks: &tasks)
      }
    case let .cancellable(id, cancelInFlight, effect):
      if cancelInFlight { cancel(id) }
      start(effect, ids: ids + [id], kind: kind, nested: nested, tasks: &tasks)
    case let .cancel(id):
      cancel(id)
    case let .run(priority, work):
      tasks.append(spawn(priority: priority, ids: ids, kind: kind, nested: nested, work))
    case let .concatenate(effects):
      tasks.append(
        spawn(priority: nil, ids: ids, kind: kind, nested: nested) { _ in
          await self.runInOrder(effects, ids: ids)
        })
    case let .throttle(id, throttle, effect):
      startThrottled(
        effect, id: id, throttle: throttle, ids: ids, kind: kind, nested: nested, tasks: &tasks)
    case let .named(name, effect):
      start(effect, ids: ids, kind: kind ?? name, nested: nested, tasks: &tasks)
    case let .failed(_, then):
      // Reported where it happened; what the refusal asks to run runs.
      start(then, ids: ids, kind: kind, nested: nested, tasks: &tasks)
    case let .holding(object, effect):
      // An action that waited in a concatenation or a throttle kept the object until now.
      withExtendedLifetime(object) {
        start(effect, ids: ids, kind: kind, nested: nested, tasks: &tasks)
      }
    case .dismiss:
      reportDismissOutsidePresentation()
    }
  }

  private func spawn(
    priority: TaskPriority?, ids: [EffectID], kind: String?, nested: Bool,
    _ work: @escaping @Sendable (Send<Action>) async -> Void
  ) -> Task<Void, Never> {
    let token = nextToken
    nextToken += 1
    let send = Send<Action>(
      { action in await self.receive(action) },
      dismissal: { reportDismissOutsidePresentation() })
    let finish: @Sendable () async -> Void = { await self.finished(token) }
    // The task captures no actor, so it is not isolated to this store: its work starts at once
    // instead of queueing behind the store, on the global executor or on the effect executor
    // the dependencies name (a test's, so the test can tell when it has gone as far as it
    // can). Unlike a detached task it inherits task-locals, so a test still sees issues
    // reported from inside the effect.
    let operation: @Sendable () async -> Void = { [work, send, finish] in
      await work(send)
      await finish()
    }
    let task =
      effectExecutor.map {
        Task(executorPreference: $0, priority: priority, operation: operation)
      } ?? Task(priority: priority, operation: operation)
    running[token] = RunningEffect(task: task, ids: ids, kind: kind, nested: nested)
    for id in ids { tokensByID[id, default: []].insert(token) }
    if !nested {
      instrumentation?.effectStarted(token, RunningEffectInfo(kind: kind, ids: ids))
    }
    return task
  }

  private func finished(_ token: Int) {
    guard let effect = running.removeValue(forKey: token) else { return }
    for id in effect.ids {
      tokensByID[id]?.remove(token)
      if tokensByID[id]?.isEmpty == true { tokensByID[id] = nil }
    }
    instrumentation?.effectFinished(token)
  }

  private func cancel(_ id: EffectID) {
    for token in tokensByID.removeValue(forKey: id) ?? [] { running[token]?.task.cancel() }
    if let pending = throttles[id]?.pending {
      pending.cancel()
      throttles[id]?.pending = nil
    }
  }

  /// Cancels every running effect; what they would still send is dropped.
  public func cancelAllEffects() {
    for effect in running.values { effect.task.cancel() }
    for id in throttles.keys { throttles[id]?.pending?.cancel() }
  }

  /// How many effects are running now.
  public var runningEffectCount: Int { running.count }

  /// The effects running now, oldest first, as a person would list them (a concatenation's
  /// parts are its own entry).
  public var runningEffects: [RunningEffectSummary] {
    running.filter { !$0.value.nested }.sorted { $0.key < $1.key }.map {
      RunningEffectSummary(number: $0.key, kind: $0.value.kind, ids: $0.value.ids)
    }
  }

  /// Cancels the running effect numbered `number` (from `runningEffects`); false when none
  /// runs under that number. A part of a concatenation is not one (`runningEffects` does not
  /// list it): cancelled alone, the concatenation went on to its next part, so a debounce's
  /// wait, cancelled by its number, ran the debounced effect at once.
  @discardableResult
  public func cancelEffect(number: Int) -> Bool {
    guard let effect = running[number], !effect.nested else { return false }
    effect.task.cancel()
    return true
  }

  /// Runs `effects` one after another, each to completion, on behalf of one concatenation.
  private func runInOrder(_ effects: [Effect<Action>], ids: [EffectID]) async {
    for effect in effects {
      if Task.isCancelled { return }
      var tasks: [Task<Void, Never>] = []
      start(effect, ids: ids, nested: true, tasks: &tasks)
      reduceQueued()
      for task in tasks {
        await withTaskCancellationHandler {
          await task.value
        } onCancel: {
          task.cancel()
        }
      }
    }
  }

  /// Reduces actions queued outside a send (by effects started from a concatenation).
  private func reduceQueued() {
    guard !queue.isEmpty, !isSending else { return }
    let (action, _) = queue.removeFirst()
    _ = enqueue(action, fromEffect: true)
  }

  private func startThrottled(
    _ effect: Effect<Action>, id: EffectID, throttle: Throttle, ids: [EffectID], kind: String?,
    nested: Bool, tasks: inout [Task<Void, Never>]
  ) {
    var gate = throttles[id] ?? ThrottleState(clock: throttle.clock)
    let clock = gate.clock
    let now = clock.now
    if let last = gate.lastStart, last.duration(to: now) < throttle.interval {
      // Inside the window: the effect waits for its end (the latest one, or the first).
      if gate.pending != nil && !throttle.latest { return }
      gate.pending?.cancel()
      let deadline = last.advanced(by: throttle.interval)
      gate.pending = spawn(priority: nil, ids: ids, kind: kind, nested: nested) { _ in
        do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
        await self.startAfterThrottle(effect, id: id, ids: ids, kind: kind)
      }
      tasks.append(gate.pending!)
    } else {
      gate.pending?.cancel()
      gate.pending = nil
      gate.lastStart = now
      start(effect, ids: ids + [id], kind: kind, nested: nested, tasks: &tasks)
    }
    throttles[id] = gate
  }

  private func startAfterThrottle(
    _ effect: Effect<Action>, id: EffectID, ids: [EffectID], kind: String?
  ) {
    guard !Task.isCancelled, let clock = throttles[id]?.clock else { return }
    throttles[id] = ThrottleState(clock: clock, lastStart: clock.now, pending: nil)
    var tasks: [Task<Void, Never>] = []
    start(effect, ids: ids + [id], kind: kind, tasks: &tasks)
    reduceQueued()
  }

  // MARK: Observing

  /// Calls `onChange` with the state after every send, until the returned token is cancelled.
  @discardableResult
  public func observe(_ onChange: @escaping @Sendable (State) -> Void) -> ObservationToken {
    let id = nextObserver
    nextObserver += 1
    observers[id] = onChange
    return ObservationToken { await self.stopObserving(id) }
  }

  private func stopObserving(_ id: Int) { observers[id] = nil }

  /// The state after every send, from now on.
  public var states: AsyncStream<State> {
    let (stream, continuation) = AsyncStream<State>.makeStream(
      bufferingPolicy: .bufferingNewest(64))
    let token = observe { continuation.yield($0) }
    continuation.onTermination = { _ in Task { await token.cancel() } }
    return stream
  }
}

/// Stops an observation.
public struct ObservationToken: Sendable {
  let stop: @Sendable () async -> Void
  /// Stops the observation: the closure is not called for sends after this returns.
  public func cancel() async { await stop() }
}

/// What the TestStore needs to see of a store at work.
@usableFromInline
final class StoreInstrumentation<State, Action>: Sendable {
  @usableFromInline let didReduce: @Sendable (Action, _ fromEffect: Bool, State) -> Void
  let effectStarted: @Sendable (Int, RunningEffectInfo) -> Void
  let effectFinished: @Sendable (Int) -> Void

  init(
    didReduce: @escaping @Sendable (Action, Bool, State) -> Void,
    effectStarted: @escaping @Sendable (Int, RunningEffectInfo) -> Void,
    effectFinished: @escaping @Sendable (Int) -> Void
  ) {
    self.didReduce = didReduce
    self.effectStarted = effectStarted
    self.effectFinished = effectFinished
  }
}

/// An effect running in a store: its number there, its kind (`debounce`, `http`, ...; nil for
/// plain work) and the cancellation ids around it.
public struct RunningEffectSummary: Sendable, Equatable {
  /// The effect's number in its store, for `Store.cancelEffect(number:)`. (The TestStore's
  /// `effectsInFlight()` numbers them from 1 instead.)
  public let number: Int
  /// The outermost name an operator gave the effect (`debounce`, `timer`, ...); nil for plain
  /// work.
  public let kind: String?
  /// The cancellation ids the effect runs under, the outermost first.
  public let ids: [EffectID]
}

/// What the TestStore is told of an effect that starts: its kind (`debounce`, `http`, ...; nil
/// for plain `run` work) and the cancellation ids around it.
struct RunningEffectInfo: Sendable {
  let kind: String?
  let ids: [EffectID]
}
