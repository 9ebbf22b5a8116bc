/// The effects of one `TestStore.send`: wait for them, or cancel them.
public struct TestStoreTask: Sendable {
  let task: StoreTask

  public func cancel() { task.cancel() }

  /// Waits for the effects of the send to finish.
  public func finish() async { await task.finish() }

  public var isCancelled: Bool { task.isCancelled }
}
