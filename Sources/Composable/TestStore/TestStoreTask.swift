/// The effects of one `TestStore.send`: wait for them, or cancel them.
public struct TestStoreTask: Sendable {
  let task: StoreTask

  /// Cancels the effects of the send; what they would still send is dropped.
  public func cancel() { task.cancel() }

  /// Waits for the effects of the send to finish.
  public func finish() async { await task.finish() }

  /// Whether the effects of the send were cancelled (any of them).
  public var isCancelled: Bool { task.isCancelled }
}
