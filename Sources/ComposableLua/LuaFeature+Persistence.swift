import Composable
import Foundation
import IssueReporting
import LuaKit

/// Keeping the state on disk: the saved file, its schedule, restoring it.
extension LuaFeature {
  /// A saver for `persistence`, writing `persistedFile()`; nil for a feature that does not
  /// persist. (It holds the feature weakly: the feature holds it.)
  func makeSaver(for persistence: Persistence?) -> StateSaver? {
    guard let persistence else { return nil }
    return StateSaver(path: persistence.path) { [weak self] in
      guard let self else { throw CancellationError() }
      return try self.persistedFile()
    }
  }

  /// Persistence observing a commit (`step`, before it commits an action that wrote): when the
  /// action changed what is saved, the saver is told, and the save to run on `context`'s
  /// dependencies is returned, on the schedule `StateSaver` keeps (a `debounce` after the first
  /// change not yet saved). Nil when nothing saved changed (a change elsewhere, a screen opened,
  /// or a write of the value already there, starts no save) and when the context runs no
  /// effect (a replay).
  func persistenceObservesCommit(
    of vm: LuaVM, _ loaded: Loaded, _ saver: StateSaver, _ context: LuaStepContext
  ) -> Effect<LuaValue>? {
    guard context.effects == .run, let persistence = loaded.module.persistence else { return nil }
    let field = persistence.select.map { LuaValue($0) } ?? .nil
    guard vm.transactionChanged(field: field, of: stateReference) else { return nil }
    saver.changed()
    let dependencies = (context.dependencies ?? hostEnvironment.defaultDependencies()).values
    let onError = context.onError
    let path = persistence.path.description
    return saver.save(
      delay: Seconds.duration(persistence.debounce) ?? .seconds(1),
      clock: dependencies.clock, files: dependencies.files
    ) { error in
      let action =
        error is StateSaverConflict
        ? LuaFeatureError.stateSavedAsideAction : LuaFeatureError.stateSaveAction
      onError(.effect(action: action, error: Self.saveError(error, path)))
    }
  }

  /// A save's error as the Lua error a `.effect(action: "saving the state", ...)` holds: the
  /// file named once (a file client's errors and a refusal name it already), a Lua error
  /// (a value that is no data) as it was, `persist.is_duplicate` raising named as such.
  static func saveError(_ error: any Error, _ path: String) -> LuaError {
    switch error {
    case let LuaFeatureError.conversion(lua):
      return lua
    case let LuaFeatureError.effect(action, .runtime(message, traceback)):
      // `persist.is_duplicate` raised: said so, where its message alone read like the save's.
      return .runtime(message: "\(action) raised: \(message)", traceback: traceback)
    case let LuaFeatureError.effect(LuaFeatureError.isDuplicateAction, lua):
      // Stopped by a limit (a loop, memory): the feature's doing too, said as such, never as
      // the data directory's (whose fix was given for it).
      return .runtime(
        message: "\(LuaFeatureError.isDuplicateAction) was stopped: \(lua.message)",
        traceback: "")
    case let LuaFeatureError.effect(_, lua):
      return lua
    default:
      let text = "\(error)"
      return .runtime(
        message: text.hasPrefix(path) ? text : "\(path): \(text)", traceback: "")
    }
  }

  /// Why a save failed, in the words a save during the run uses (`stateSaveReason`), for a save
  /// at the end or at a signal: the same failure reads the same, so a host says it once.
  public func saveFailureReason(_ error: any Error) -> String {
    Self.saveError(error, persistence?.path.description ?? "").withoutLibraryFrames.description
  }

  /// Where the saves go since one found the saved file changed by another writer (beside it,
  /// relative to the files' root); nil while they go to the file, and for a feature that does
  /// not persist. A host says at its end where the state is.
  public var stateSavedAside: DataPath? { saver?.asidePath }

  /// Writes the state now if an action changed it since the last save (a save still waiting,
  /// say): for a host about to exit, on end of input or a signal.
  public func savePending(files: FileClient) async throws {
    try await saver?.savePending(files: files)
  }

  /// `savePending` without waiting on anything: `write(path, contents)` does the writing. For a
  /// signal handler, which must not wait for tasks (the threads that would run them may be the
  /// ones it stopped).
  /// `read(path)` gives what the file holds now (nil when it is not there): a file another
  /// writer changed since the restore is left as it is (`StateSaver`); `locked(path, body)`
  /// runs the read and the write holding the file's lock, telling `body` whether it got it.
  public func savePending(
    write: (DataPath, [UInt8]) throws -> Void, read: (DataPath) throws -> [UInt8]?,
    locked: (DataPath, (_ held: Bool) throws -> Void) throws -> Void = { _, body in
      try body(true)
    }
  ) throws {
    try saver?.savePending(write: write, read: read, locked: locked)
  }

  /// What to save: the state, or its selected field, as a Lua data file (`LuaDataFile`), which
  /// holds every value the state can hold exactly. A value that is no data (a function kept in
  /// the state) is refused here, with its field named.
  ///
  /// Nil when `persist.is_duplicate(old, new)` says the value is a duplicate of the last one
  /// saved or restored: nothing worth writing.
  public func persistedFile() throws(LuaFeatureError) -> [UInt8]? {
    let state = try self.state()
    let (selected, root): (LuaValue, String)
    if let select = persistence?.select {
      (selected, root) = (state[LuaValue(select)], "state.\(select)")
    } else {
      (selected, root) = (state, "state")
    }
    if try isDuplicateOfLastSaved(selected) { return nil }
    // The code that saved it: a start on other code runs its `migrate(state)` on it.
    let header =
      "The state \(file) saved. composable reads it back as Lua data: literals only.\n"
      + Self.savedCodePrefix + codeFingerprint
      + " (the code that saved it: other code runs its migrate(state) on it)"
    do throws(LuaError) {
      return Array(try LuaDataFile.text(of: selected, root: root, header: header).utf8)
    } catch {
      throw .conversion(error)
    }
  }

  /// Loads what the feature saved under `files`, if it persists and something was saved. A
  /// file that is not a state is reported, moved aside, and the state is left as it is; one
  /// that cannot be read is reported and left where it is. A file written as JSON (by an
  /// earlier version) is read too; the next save writes it as a Lua data file.
  ///
  /// A state saved by other code (its file's code fingerprint is not `codeFingerprint`, or it
  /// has none) is upgraded by the feature's `migrate(state)`, as a hot reload upgrades the state
  /// in memory; `restoreMigration` says what it changed, and the upgraded state is saved at the
  /// next save. If `migrate` raises, the state is put back as it was before the restore, every
  /// later save is refused (the file is never replaced by a state that was not upgraded), and
  /// the error is thrown, naming the file.
  @discardableResult
  public func restorePersisted(
    files: FileClient, report: @escaping @Sendable (String) -> Void = { reportIssue($0) }
  ) async throws(LuaFeatureError) -> PersistedState.Loaded<LuaValue> {
    guard let persistence else { return .missing }
    let wholeState = persistence.select == nil
    let read = await PersistedState.load(from: persistence.path, files: files, report: report) {
      bytes in
      (
        value: try self.readSaved(bytes, path: persistence.path, wholeState: wholeState),
        code: Self.savedCodeFingerprint(in: bytes), bytes: bytes
      )
    }
    let loaded: PersistedState.Loaded<LuaValue>
    // What the file holds now, so that a save finds out whether another writer changed it.
    switch read {
    case let .saved(saved):
      loaded = .saved(saved.value)
      saver?.knowsFile(saved.bytes)
    case .missing:
      loaded = .missing
      saver?.knowsFile(nil)
    case let .corrupt(reason, movedTo):
      loaded = .corrupt(reason: reason, movedTo: movedTo)
      if movedTo == persistence.path.description {
        // Left where it is (it could not be read, or not moved aside): a save would replace it.
        saver?.refuseSaves(because: reason)
      } else {
        saver?.knowsFile(nil)  // moved aside
      }
    }
    guard case let .saved(saved) = read else { return loaded }
    try queue.access { (vm, current) throws(LuaFeatureError) in
      let field = persistence.select.map { LuaValue($0) } ?? .nil
      let byOtherCode = saved.code != current.codeFingerprint
      let migrate = byOtherCode ? current.module.migrate : nil
      // The state before the restore (the initial one), to put back if `migrate` fails on the
      // saved one, and to compare a state other code saved with.
      var before: LuaValue?
      if migrate != nil {
        do throws(LuaError) { before = try vm.value(of: stateReference, rootName: "state") } catch {
          throw .conversion(error)
        }
      } else if byOtherCode {
        before = try? vm.value(of: stateReference, rootName: "state")  // only to compare with
      }
      try writeState(field, saved.value, in: vm)
      if current.module.isDuplicate != nil {
        do throws(LuaError) { current.lastSaved = try vm.reference(to: saved.value) } catch {
          throw .conversion(error)
        }
      }
      guard let before else { return }
      defer {
        // Where the state (after `migrate`) is not shaped as the initial one: with `select`,
        // the field restored, against the same field (and named as a field of the state).
        func restoredPart(_ state: LuaValue) -> LuaValue {
          guard let select = persistence.select else { return state }
          return .table(
            LuaTable(entries: [LuaValue(select): state.tableValue?[LuaValue(select)] ?? .nil]))
        }
        if let now = try? vm.value(of: stateReference, rootName: "state") {
          let found = RestoredShapeGap.gaps(
            restored: restoredPart(now), initial: restoredPart(before))
          current.restoredShapeGaps = found.count == 0 ? nil : found
        }
      }
      guard let migrate else { return }
      do throws(LuaError) {
        let changes = try runMigration(migrate, in: vm)
        current.restoreMigration = changes
        if case let .success(differences) = changes, !differences.isEmpty {
          current.saver?.changed()
        }
      } catch {
        try writeState(.nil, before, in: vm)
        current.lastSaved = nil
        let reason =
          "it was saved by other code, and migrate(state) failed on it, so it was not restored"
        current.saver?.refuseSaves(because: reason)
        throw .load(
          file: current.fileName,
          message: "\(persistence.path): the state saved there was saved by other code, and "
            + "migrate(state) failed on it: \(error.withoutLibraryFrames)\nThe file is left as "
            + "it was, and nothing is saved over it. To fix, make migrate(state) handle that "
            + "state, or move the file away to start from initial_state()")
      }
    }
    return loaded
  }

  /// Whether `persist.is_duplicate(old, new)` calls `value` a duplicate of the last value saved
  /// or restored (nil before any); false without `is_duplicate`. Otherwise `value` becomes the
  /// last one saved.
  func isDuplicateOfLastSaved(_ value: LuaValue) throws(LuaFeatureError) -> Bool {
    try queue.access { (vm, current) throws(LuaFeatureError) -> Bool in
      guard let isDuplicate = current.module.isDuplicate else { return false }
      do throws(LuaError) {
        let new = try vm.reference(to: value)
        let old: LuaArgument = current.lastSaved.map { LuaArgument.reference($0) } ?? .value(.nil)
        let answer = try vm.call(isDuplicate, arguments: [old, .reference(new)]).first ?? .nil
        if answer.isTruthy { return true }
        current.lastSaved = new
        return false
      } catch {
        throw .effect(action: LuaFeatureError.isDuplicateAction, error: error)
      }
    }
  }

  /// A JSON decoding error in a person's words: what is wrong, and where when it is known.
  static func describe(_ error: any Error) -> String {
    if let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String {
      return text
    }
    switch error {
    case let DecodingError.dataCorrupted(context):
      let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey]
      return (underlying as? String) ?? context.debugDescription
    case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context),
      let DecodingError.keyNotFound(_, context):
      return context.debugDescription
    default:
      return "\(error)"
    }
  }

  func readSaved(
    _ bytes: [UInt8], path: DataPath, wholeState: Bool
  ) throws(PersistedState.NotAState) -> LuaValue {
    let value: LuaValue
    do throws(LuaError) {
      // Literals only: nothing in it runs.
      value = try LuaDataFile.read(bytes, chunkName: path.description)
    } catch {
      let json: LuaValue
      do {
        json = try JSONDecoder().decode(LuaValue.self, from: Data(bytes))
      } catch let jsonError {
        // A file that starts as JSON does (an older save) is said as JSON: the data file's
        // words about it ("expected 'return'") would not say what is wrong in it.
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
          throw .init(reason: "it is not a saved state: \(error.message)")
        }
        var why = Self.describe(jsonError)
        do { _ = try JSONSerialization.jsonObject(with: Data(bytes)) } catch {
          why = Self.describe(error)  // the syntax's own words, with where
        }
        while why.hasSuffix(".") { why.removeLast() }
        throw .init(
          reason: "it is not a saved state: it reads as neither a Lua data file nor "
            + "JSON: \(why)")
      }
      value = json
    }
    if wholeState, value.tableValue == nil {
      throw .init(reason: "it is not a saved state: expected a table, got \(value.typeName)")
    }
    return value
  }
}
