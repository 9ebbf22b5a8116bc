import Foundation

/// A value shared between a test and the tasks it starts.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  var current: Value { lock.withLock { value } }

  func update(_ change: (inout Value) -> Void) { lock.withLock { change(&value) } }
}
