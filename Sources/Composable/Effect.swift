/// Work a reducer asks the store to do after it returns: feed an action back, run async work,
/// cancel other work. Effects are values; the `Store` runs them.
public struct Effect<Action: Sendable>: Sendable {
  @usableFromInline indirect enum Operation: Sendable {
    case none
    /// An action fed back to the store right after the current one.
    case send(Action)
    /// Async work; `Send` delivers its actions. Errors went to the catch handler already.
    case run(TaskPriority?, @Sendable (Send<Action>) async -> Void)
    case merge([Effect])
    case concatenate([Effect])
    case cancellable(EffectID, cancelInFlight: Bool, Effect)
    case cancel(EffectID)
    case throttle(EffectID, Throttle, Effect)
    /// The effect with the name of the operator that made it, for messages about it.
    case named(String, Effect)
    /// An action to send (or such a node), keeping an object alive until it is sent: see
    /// `holding(_:)`, which puts the object on every part that does work.
    case holding(any AnyObject & Sendable, Effect)
    /// The reducer refused the action (see `failure(_:then:)`); `then` runs all the same.
    case failed(ActionFailure, then: Effect)
    /// The feature asks whoever presents it to dismiss it (see `dismiss`); a stack or a
    /// presentation turns it into its own action.
    case dismiss
  }

  @usableFromInline let operation: Operation

  init(_ operation: Operation) { self.operation = operation }

  /// No work.
  ///
  /// ```swift
  /// case .incrementButtonTapped:
  ///   state.count += 1
  ///   return .none
  /// ```
  public static var none: Self { Self(.none) }

  /// Feeds `action` back into the store at once, reduced right after the current action.
  ///
  /// ```swift
  /// case .saveButtonTapped:
  ///   state.isSaving = true
  ///   return .send(.validate)
  /// ```
  public static func send(_ action: Action) -> Self { Self(.send(action)) }

  /// Async work that sends actions back through `send`. An error thrown by `operation` goes to
  /// `handler` (cancellation excepted); without a handler it is reported as an issue. It never
  /// crashes the store.
  ///
  /// ```swift
  /// case .loadButtonTapped:
  ///   return .run { [id = state.id] send in
  ///     await send(.loaded(try await api.fetch(id)))
  ///   } catch: { error, send in
  ///     await send(.loadFailed("\(error)"))
  ///   }
  /// ```
  public static func run(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable (Send<Action>) async throws -> Void,
    catch handler: (@Sendable (any Error, Send<Action>) async -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> Self {
    Self(
      .run(priority) { send in
        do {
          try await operation(send)
        } catch is CancellationError {
        } catch {
          if let handler {
            await handler(error, send)
          } else {
            reportUnhandledEffectError(
              error, fileID: fileID, filePath: filePath, line: line, column: column)
          }
        }
      })
  }

  /// Whether this is `.none`: no work at all.
  @inlinable public var isNone: Bool { if case .none = operation { true } else { false } }
}

/// Delivers actions from an effect to its store. Once the effect is cancelled it delivers
/// nothing, so a cancelled effect cannot change state.
public struct Send<Action: Sendable>: Sendable {
  let deliver: @Sendable (Action) async -> Void
  /// What `dismiss()` does: set by the stack or presentation that holds the feature; nil at
  /// the top of a store.
  let dismissal: (@Sendable () async -> Void)?

  /// A `Send` that hands each action to `deliver`: for running an effect's work outside a store,
  /// as a test of that work alone does.
  ///
  /// ```swift
  /// let send = Send<Feature.Action> { action in print("sent", action) }
  /// await send(.refresh)
  /// ```
  public init(_ deliver: @escaping @Sendable (Action) async -> Void) {
    self.init(deliver, dismissal: nil)
  }

  init(
    _ deliver: @escaping @Sendable (Action) async -> Void,
    dismissal: (@Sendable () async -> Void)?
  ) {
    self.deliver = deliver
    self.dismissal = dismissal
  }

  /// Sends `action` back to the store: `await send(.loaded(items))`. Once the effect is
  /// cancelled, it does nothing.
  public func callAsFunction(_ action: Action) async {
    guard !Task.isCancelled else { return }
    await deliver(action)
  }
}
