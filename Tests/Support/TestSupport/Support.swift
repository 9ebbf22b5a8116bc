import Composable
import ComposableLua
import Foundation
import LuaKit
import Testing

/// The repository's root, found from this file, so tests can load the examples.
public let repositoryRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

public func example(_ path: String) -> String {
  repositoryRoot.appendingPathComponent("examples").appendingPathComponent(path).path
}

/// A TestStore over a feature given as source.
public func testStore(
  _ source: String, file: String = "feature.lua", state: LuaValue? = nil,
  limits: LuaLimits = LuaLimits(),
  dependencies: (inout DependencyValues) -> Void = { _ in }
) throws -> TestStore<LuaValue, LuaValue> {
  let feature = try LuaFeature(source: source, file: file, state: state, limits: limits)
  return TestStore(
    initialState: try feature.state(),
    reducer: { LuaFeatureReducer<LuaValue>(feature: feature, dependencies: $0) },
    dependencies: dependencies)
}

/// The message of a known issue.
public func message(of issue: Issue) -> String {
  issue.comments.map(\.rawValue).joined(separator: "\n")
}

/// The error a throwing call threw, if it was a `LuaFeatureError`.
public func featureError(_ body: () throws -> Void) -> LuaFeatureError? {
  do {
    try body()
    return nil
  } catch {
    return error as? LuaFeatureError
  }
}

/// A new empty directory under the temporary directory, named `prefix-UUID`; the caller
/// removes it.
public func makeTemporaryDirectory(_ prefix: String) throws -> URL {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "\(prefix)-\(UUID())")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  return directory
}

/// A product built beside the tests (`composable`, `search-server`): `swift build
/// --build-tests` builds them all.
public func builtProduct(_ name: String) throws -> URL {
  let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent(name)
  try #require(
    FileManager.default.isExecutableFile(atPath: executable.path),
    "build the \(name) product first (swift build --build-tests builds it)")
  return executable
}

/// A value shared between a test and the tasks it starts, behind a pthread lock that
/// ThreadSanitizer sees (it does not see the futex calls the standard library's `Mutex` is made
/// of, and would report every use as a race).
public final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  public init(_ value: Value) { self.value = value }

  public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

/// The errors a reducer's `onError` saw.
public final class Errors: Sendable {
  public init() {}
  private let errors = Locked<[LuaFeatureError]>([])

  public func append(_ error: LuaFeatureError) { errors.withLock { $0.append(error) } }
  public var all: [LuaFeatureError] { errors.withLock { $0 } }
}

/// A live store over `feature` whose reducer's errors are collected rather than reported.
public func storeCollectingErrors(
  _ feature: LuaFeature
) -> (Store<LuaFeatureHandle, LuaValue>, Errors) {
  let errors = Errors()
  let store = Store(
    initialState: LuaFeatureHandle(feature: feature),
    reducer: LuaFeatureReducer<LuaFeatureHandle>(
      feature: feature, dependencies: .live, readState: { LuaFeatureHandle(feature: $0) },
      onError: { errors.append($0) }))
  return (store, errors)
}
