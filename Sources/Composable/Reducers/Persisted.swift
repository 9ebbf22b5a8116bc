import Foundation
import IssueReporting

/// Keeps a state on disk: saves it when a change counts, and loads it back at start.
///
/// Saves go through a `FileClient` (atomic with `FileClient.live`: a crash mid-save leaves the
/// previous file) on the schedule of `StateSaver`, which Lua features use too: `debounce` after
/// the first change not yet saved, writing the latest state, so a burst of changes is one write.
/// A change counts unless `isDuplicate(old, new)` says the two are the same as far as saving
/// goes.
extension Reducer where State: Encodable {
  /// Saves the state to `path` through `files` when an action changes it: the change is saved
  /// unless `isDuplicate(old, new)` is true. The write comes `debounce` after the first change
  /// not yet saved, with the state as it is then; a failed save goes to `onSaveError`.
  ///
  /// ```swift
  /// Todos()
  ///   .persisted(
  ///     to: "todos.json", files: files, clock: clock,
  ///     ignoringDuplicates: { $0.todos == $1.todos })
  /// ```
  public func persisted(
    to path: DataPath,
    files: FileClient,
    clock: any Clock<Duration>,
    debounce: Duration = .seconds(1),
    ignoringDuplicates isDuplicate: @escaping @Sendable (State, State) -> Bool,
    onSaveError: @escaping @Sendable (any Error) -> Void = {
      reportIssue("Saving the state failed: \($0)")
    }
  ) -> Reduce<State, Action> {
    let saver = StateSaver(path: path)
    return Reduce { state, action in
      let old = state
      let effect = self.reduce(into: &state, action: action)
      guard effect.failure == nil, !isDuplicate(old, state) else { return effect }
      let data: [UInt8]
      do {
        data = Array(try PersistedState.encoder.encode(state))
      } catch {
        onSaveError(error)
        return effect
      }
      saver.changed()
      let save: Effect<Action> = saver.save(
        contents: { data }, delay: debounce, clock: clock, files: files, onError: onSaveError)
      return .merge(effect, save)
    }
  }
}

extension Reducer where State: Encodable & Equatable {
  /// Saves whenever the state changed.
  ///
  /// ```swift
  /// Settings().persisted(to: "settings.json", files: files, clock: clock)
  /// ```
  public func persisted(
    to path: DataPath, files: FileClient, clock: any Clock<Duration>,
    debounce: Duration = .seconds(1),
    onSaveError: @escaping @Sendable (any Error) -> Void = {
      reportIssue("Saving the state failed: \($0)")
    }
  ) -> Reduce<State, Action> {
    persisted(
      to: path, files: files, clock: clock, debounce: debounce, ignoringDuplicates: { $0 == $1 },
      onSaveError: onSaveError)
  }
}

/// Loading what `persisted` saved.
public enum PersistedState {
  static let encoder = JSONEncoder.sortedKeys()

  /// What loading found.
  public enum Loaded<State>: Sendable where State: Sendable {
    /// The saved state.
    case saved(State)
    /// Nothing was saved yet.
    case missing
    /// The file could not be read as a state. It was moved to `movedTo`, so that nothing is
    /// lost, and the reason is in `reason`.
    case corrupt(reason: String, movedTo: String)

    /// The saved state, or `initial` when there is none (a corrupt file was reported).
    public func state(or initial: State) -> State {
      if case let .saved(state) = self { return state }
      return initial
    }
  }

  /// Loads the state saved at `path`. A corrupt file is reported, moved aside to
  /// `path.corrupt-<time>`, and never silently replaced; one that cannot be read is reported
  /// and left where it is (what cannot be read cannot be copied aside, and is never deleted).
  /// `problem` can refuse a value that decodes but is no state (`null` where a table must be),
  /// naming why; it is then moved aside like a corrupt file.
  public static func load<State: Decodable & Sendable>(
    _ type: State.Type, from path: DataPath, files: FileClient,
    now: Date = Date(), report: @Sendable (String) -> Void = { reportIssue($0) },
    problem: (State) -> String? = { _ in nil }
  ) async -> Loaded<State> {
    await load(from: path, files: files, now: now, report: report) { bytes in
      let state: State
      do { state = try JSONDecoder().decode(type, from: Data(bytes)) } catch {
        throw NotAState(reason: "it is not a saved \(State.self): \(error)")
      }
      if let problem = problem(state) {
        throw NotAState(reason: "it is not a saved state: \(problem)")
      }
      return state
    }
  }

  /// Why a file's contents are not a saved state, as the report words it ("it is not a saved
  /// state: ..."): thrown by the `decode` of `load(from:files:decode:)`.
  public struct NotAState: Error {
    /// Why, in the words the report uses after "because": "it is not a saved state: ...".
    public let reason: String
    /// The error for contents that are not a state, for `reason`.
    ///
    /// ```swift
    /// let loaded = await PersistedState.load(from: "note.txt", files: files) { bytes in
    ///   guard let text = String(validating: bytes, as: UTF8.self) else {
    ///     throw PersistedState.NotAState(reason: "it is not UTF-8 text")
    ///   }
    ///   return text
    /// }
    /// ```
    public init(reason: String) { self.reason = reason }
  }

  /// `load` for any format: `decode` turns the file's bytes into a state, or throws
  /// `NotAState` (any other error reads "it is not a saved state: <error>"), and the file is
  /// then moved aside.
  public static func load<State: Sendable>(
    from path: DataPath, files: FileClient, now: Date = Date(),
    report: @Sendable (String) -> Void = { reportIssue($0) },
    decode: ([UInt8]) throws -> State
  ) async -> Loaded<State> {
    let bytes: [UInt8]
    do {
      bytes = try await files.read(path)
    } catch {
      if error.isFileNotFound { return .missing }
      return await moveAside(
        path, reason: "it cannot be read: \(error)", bytes: nil, files: files, now: now,
        report: report)
    }
    do {
      return .saved(try decode(bytes))
    } catch {
      let reason = (error as? NotAState)?.reason ?? "it is not a saved state: \(error)"
      return await moveAside(
        path, reason: reason, bytes: bytes, files: files, now: now, report: report)
    }
  }

  private static func moveAside<State>(
    _ path: DataPath, reason: String, bytes: [UInt8]?, files: FileClient, now: Date,
    report: @Sendable (String) -> Void
  ) async -> Loaded<State> {
    guard let bytes else {
      report(
        "The saved state at \(path) was not loaded, because \(reason). It was left where it "
          + "is; the feature starts from its initial state.")
      return .corrupt(reason: reason, movedTo: path.description)
    }
    do {
      // A name no file has: two bad files within a second must not share one (the second
      // would replace the first copy, which is all that is left of it).
      let stamp = Int(now.timeIntervalSince1970)
      var aside = try path.appendingToName(".corrupt-\(stamp)")
      var attempt = 1
      while try await files.exists(aside) {
        attempt += 1
        aside = try path.appendingToName(".corrupt-\(stamp)-\(attempt)")
      }
      try await files.write(aside, bytes)
      try await files.remove(path)
      report(
        "The saved state at \(path) was not loaded, because \(reason). It was moved to \(aside); the feature starts from its initial state."
      )
      return .corrupt(reason: reason, movedTo: aside.description)
    } catch {
      report(
        "The saved state at \(path) was not loaded, because \(reason). Moving it aside failed too (\(error)); it was left where it is."
      )
      return .corrupt(reason: reason, movedTo: path.description)
    }
  }
}
