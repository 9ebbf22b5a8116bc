/// The effects one `send` started: cancel them, or wait for them to finish.
public struct StoreTask: Sendable {
  @usableFromInline let tasks: [Task<Void, Never>]

  @usableFromInline init(tasks: [Task<Void, Never>]) { self.tasks = tasks }

  /// Cancels the effects; what they would still send is dropped.
  public func cancel() {
    for task in tasks { task.cancel() }
  }

  /// Waits until the effects finish. Cancelling the waiting task cancels them.
  public func finish() async {
    for task in tasks {
      await withTaskCancellationHandler {
        await task.value
      } onCancel: {
        task.cancel()
      }
    }
  }

  /// Whether any of the effects was cancelled.
  public var isCancelled: Bool { tasks.contains { $0.isCancelled } }
}
