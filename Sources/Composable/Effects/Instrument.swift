extension Effect {
  /// The same work, with hooks on the life of each async part: when it starts, what it sends,
  /// and whether it finished or was cancelled.
  func instrumented(
    onStart: @escaping @Sendable () -> Void,
    onOutput: @escaping @Sendable (Action) -> Void,
    onEnd: @escaping @Sendable (_ cancelled: Bool) -> Void
  ) -> Self {
    switch operation {
    case .none, .send, .cancel, .dismiss:
      return self
    case let .run(priority, work):
      return Self(
        .run(priority) { send in
          onStart()
          await work(
            Send(
              { action in
                onOutput(action)
                await send(action)
              }, dismissal: send.dismissal))
          onEnd(Task.isCancelled)
        })
    case let .merge(effects):
      return Self(
        .merge(effects.map { $0.instrumented(onStart: onStart, onOutput: onOutput, onEnd: onEnd) }))
    case let .concatenate(effects):
      return Self(
        .concatenate(
          effects.map { $0.instrumented(onStart: onStart, onOutput: onOutput, onEnd: onEnd) }))
    case let .cancellable(id, cancelInFlight, effect):
      return Self(
        .cancellable(
          id, cancelInFlight: cancelInFlight,
          effect.instrumented(onStart: onStart, onOutput: onOutput, onEnd: onEnd)))
    case let .throttle(id, throttle, effect):
      return Self(
        .throttle(
          id, throttle, effect.instrumented(onStart: onStart, onOutput: onOutput, onEnd: onEnd)))
    case let .named(name, effect):
      return Self(
        .named(name, effect.instrumented(onStart: onStart, onOutput: onOutput, onEnd: onEnd)))
    case let .holding(object, effect):
      return Self(
        .holding(object, effect.instrumented(onStart: onStart, onOutput: onOutput, onEnd: onEnd)))
    case let .failed(failure, then):
      return Self(
        .failed(
          failure, then: then.instrumented(onStart: onStart, onOutput: onOutput, onEnd: onEnd)))
    }
  }
}
