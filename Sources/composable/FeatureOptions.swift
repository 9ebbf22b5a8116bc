import Composable
import ComposableHost
import ComposableLua
import Foundation
import LuaKit
import Synchronization

/// What `run` and `repl` take to load a feature and give it the world: the script, its env,
/// where its files are, and how repeatable a session is.
struct FeatureOptions {
  static let argument = CommandShape.Argument(name: "feature", help: "The feature script.")
  static let options: [CommandShape.Option] = [
    .value(
      "env",
      help: "A value for the feature's env, as NAME=VALUE (repeatable). VALUE is a Lua literal "
        + "(debug=false, n=3, tags={\"a\"}) or else plain text (name=ada).",
      repeats: true),
    .value(
      "uuid",
      help: "UUIDs from env.uuid(): live (random) or incrementing "
        + "(00000000-...-000000000000, then ...001). (default: live)"),
    .value(
      "seed",
      help: "Seed env.random() so a session can be repeated (default: seeded by the system)."),
    .value(
      "data",
      help: "Where the feature's files are kept (default: ~/.local/share/composable/NAME, kept "
        + "for one feature of that name)."),
  ]

  var feature: String
  var environment: [String]
  var uuid: UUIDKind
  var seed: UInt64?
  var data: String?

  enum UUIDKind: String, CaseIterable { case live, incrementing }

  init(_ arguments: ParsedArguments) throws(UsageError) {
    feature = arguments.string("feature") ?? ""
    environment = arguments.strings("env")
    uuid = try arguments.choice("uuid", default: .live)
    seed = try arguments.value(
      "seed", default: nil, expected: "a whole number from 0 to \(UInt64.max)"
    ) { UInt64($0) }
    data = arguments.string("data")
    if data == "" {
      throw UsageError("--data: expected a directory, got an empty path")
    }
  }

  /// `--data`, or the XDG data directory for this feature: `$XDG_DATA_HOME`, or
  /// `$HOME/.local/share` when it is unset, empty or relative (`xdgDirectory`).
  var dataDirectory: URL {
    if let data { return URL(pathGiven: data) }
    let base = xdgDirectory("XDG_DATA_HOME", fallback: ".local/share")
    let name = URL(pathGiven: feature).deletingPathExtension().lastPathComponent
    return base.appendingPathComponent("composable").appendingPathComponent(name)
  }

  /// The feature loaded, its dependencies made, what it saved restored, and a save still
  /// waiting written on Ctrl-C or a kill. A feature that does not load is its error alone and
  /// exit 1 (64 would say the arguments were wrong).
  func load() async throws -> FeatureHost {
    let reader = LuaLiteralReader()
    var env = LuaTable()
    for entry in environment {
      guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
        throw UsageError("--env \(entry): expected NAME=VALUE")
      }
      env[String(entry[..<equals])] = reader.envValue(
        from: String(entry[entry.index(after: equals)...]))
    }
    let url = URL(pathGiven: feature)
    let loaded: LuaFeature
    do {
      // What the feature prints goes to the terminal shown, not obeyed (String.terminalSafe).
      loaded = try LuaFeature(
        contentsOf: url, env: .table(env), print: { Swift.print($0.terminalSafe) })
    } catch {
      // `composable run reading` for reading.lua: said. A test file run as a feature failed at
      // its `require("composable.test")`, which only the test runner has.
      printError("\(error)" + (Self.meant(feature).map { " (did you mean \($0)?)" } ?? ""))
      if feature.hasSuffix("_test.lua") {
        printError(
          "\(feature) is a test file: run it with composable test \(feature)", kind: "note")
      }
      throw ExitStatus.failure
    }
    var dependencies = DependencyValues.live
    var setAside: URL?
    if uuid == .incrementing { dependencies.uuid = .incrementing }
    if let seed { dependencies.random = RandomSource(seed: seed) }
    // Every feature has its files, under its data directory, made when it first writes.
    let root = dataDirectory
    let directory = ClaimedDataDirectory(root: root, feature: data == nil ? url : nil)
    dependencies.files = Run.files(under: directory)
    if let persistence = loaded.persistence {
      // A run whose every save is known to fail stops before its first action, where it would
      // have run them all and lost them at the end: the data directory cannot be made or written
      // to, or the saved file cannot be read (a save would replace it, so none is made).
      // The folder the saved file goes in: the data directory, or a folder of the path in it.
      let folder = root.appendingPathComponent(persistence.path.description)
        .deletingLastPathComponent()
      if let fix = DataDirectory.problem(with: root)
        ?? DataDirectory.problem(with: folder, checkingLength: false)
        ?? DataDirectory.replaceProblem(
          root.appendingPathComponent(persistence.path.description))
      {
        printError(
          "the state cannot be saved in the data directory \(root.path), so the run stops "
            + "before its first action: " + fix)
        throw ExitStatus.failure
      }
      // The default directory claimed now (`ClaimedDataDirectory`): kept for another feature,
      // the run stops here. (One named with `--data` is made at the first write.)
      if data == nil {
        do {
          try directory.prepare()
        } catch let refusal as DataDirectoryOwner.Refusal {
          printError(refusal.atStart)
          throw ExitStatus.failure
        } catch {
          printError("\(error)")
          throw ExitStatus.failure
        }
      }
      let warnings = Mutex<[String]>([])
      let restored: PersistedState.Loaded<LuaValue>
      do {
        restored = try await loaded.restorePersisted(files: dependencies.files) { message in
          warnings.withLock { $0.append(message) }
        }
      } catch {
        // `migrate(state)` failed on a state saved by other code: the file is left as it was,
        // and the run does not start on a state that is not the one saved.
        warnings.withLock { $0 }.forEach { printError($0, kind: "warning") }
        printError("\(error)\n(the data directory is \(root.path))")
        throw ExitStatus.failure
      }
      if case let .corrupt(reason, movedTo) = restored, movedTo == persistence.path.description {
        printError(Self.unreadableSave(persistence.path.description, reason: reason, root: root))
        throw ExitStatus.failure
      }
      warnings.withLock { $0 }.forEach { printError($0, kind: "warning") }
      if case let .corrupt(_, movedTo) = restored {
        // Where it is, and how to have it back: the first save writes a new file in its place.
        let aside = root.appendingPathComponent(movedTo).path
        setAside = URL(fileURLWithPath: aside)
        let file = root.appendingPathComponent(persistence.path.description).path
        printError(
          "the file set aside is \(aside). To have it back, end this run before its first change "
            + "is saved, fix the file, and move it back to \(file)", kind: "warning")
      }
      if case .saved = restored {
        print(
          "Restored from \(root.appendingPathComponent(persistence.path.description).path.terminalSafe)."
        )

        if loaded.restoreMigration != nil {
          print("It was saved by other code, and migrate(state) ran on it:")
          Run.printMigration(
            loaded.restoreMigration, colored: Terminal.wantsColour(FileHandle.standardOutput))
        }
        if let (gaps, count) = loaded.restoredShapeGaps {
          printError(
            RestoredShapeNote.text(
              gaps: gaps, count: count, file: persistence.path.description.terminalSafe,
              migrated: loaded.restoreMigration != nil), kind: "note")
        }
      }
    }
    // The state at start (restored, after migrate(state), or initial) may hold ids
    // `--uuid incrementing` makes: it counts on from them.
    if uuid == .incrementing, let state = try? loaded.state() {
      let (generator, note) = RestoredUUIDs.generator(after: state)
      dependencies.uuid = generator
      if let note { printError(note, kind: "note") }
    }
    // Ctrl-C or a kill: what is not saved yet (a save waits a second after the last change)
    // is written before the process ends.
    SignalSaver.install { signalNumber, gated in
      var saved = Run.SaveOutcome.saved
      do {
        try loaded.savePending { path, contents in
          try directory.prepare()
          try FileClient.writeNow(path, contents, under: root)
        } read: { path in
          do { return try FileClient.readNow(path, under: root) } catch  where error.isFileNotFound
          {
            return nil
          }
        } locked: { path, body in
          try directory.prepare()
          try FileClient.whileLockedNow(path, under: root, body)
        }
        if loaded.stateSavedAside != nil { saved = .savedBeside }
      } catch {
        let cause = SaveFailureCause(error)
        let message = Run.saveFailure(loaded.saveFailureReason(error), data: root, cause: cause)
        if Run.saidSaveFailure.withLock({ $0 }) != message { SignalSaver.say(message) }
        saved = cause == .anotherWriter ? .savedBeside : .failed
      }
      // An action that held the gate past the wait committed before the save read the state
      // (the save waits for the VM): its changes are given the same time again to be shown.
      if !gated { _ = SignalSaver.actionGate.lock(before: Date(timeIntervalSinceNow: 2)) }
      // Said last, as a run that reads all its input says its status.
      // Whether it persists now: a reload may have given or taken `persist`.
      let persists = loaded.persistence != nil || saved != .saved
      SignalSaver.say(SignalSaver.endingLine(signalNumber, saved: persists ? saved : nil))
      // `_exit`, not `exit`: exit's cleanup flushes standard output, whose lock an action stuck
      // writing into a full pipe holds: the process would never end. Each action's output was
      // flushed as it was printed; what a stuck write holds is the stuck pipe's.
      ReplacedFile.removeUnfinished()  // a session or a test being written: left as it was
      Glibc._exit(128 + signalNumber)
    }
    return FeatureHost(
      feature: loaded, file: url, env: .table(env), dependencies: dependencies,
      dataDirectory: root, setAside: setAside)
  }
}

extension FeatureOptions {
  /// The feature file a path that names none most likely meant: `reading` for `reading.lua`,
  /// the folder `bookmarks` for `bookmarks/bookmarks.lua` (or the one feature file in it).
  static func meant(_ path: String) -> String? {
    let manager = FileManager.default
    var isFolder: ObjCBool = false
    guard manager.fileExists(atPath: path, isDirectory: &isFolder) else {
      return manager.fileExists(atPath: path + ".lua") ? path + ".lua" : nil
    }
    guard isFolder.boolValue else { return nil }
    let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
    let named = folder + "/" + URL(fileURLWithPath: folder).lastPathComponent + ".lua"
    if manager.fileExists(atPath: named) { return named }
    let features = ((try? manager.contentsOfDirectory(atPath: folder)) ?? []).filter {
      $0.hasSuffix(".lua") && !$0.hasSuffix("_test.lua") && !$0.hasPrefix(".")
    }
    return features.count == 1 ? folder + "/" + features[0] : nil
  }

  /// Why a run stops at start when its saved file is there but could not be loaded and was
  /// left where it is: every save would replace it, so every save is refused.
  static func unreadableSave(_ path: String, reason: String, root: URL) -> String {
    let file = root.appendingPathComponent(path).path
    return "the saved state at \(file) could not be loaded (\(reason)), and every save would "
      + "replace it, so the run stops before its first action. To fix, move it away (or fix "
      + "it), then run again"
  }
}

/// A feature loaded by the host, with the world it runs in.
struct FeatureHost {
  let feature: LuaFeature
  let file: URL
  let env: LuaValue
  let dependencies: DependencyValues
  /// Where the feature's files are kept (`--data`, or the XDG default).
  let dataDirectory: URL
  /// The saved file that could not be read at start, moved aside (its state not restored).
  var setAside: URL? = nil

  /// Said at the end of a run that set its saved file aside: the start's warning has scrolled
  /// by, and the file saved since holds this run's state, not what was set aside. A run that
  /// saved nothing (no change reached what is saved) left no file in its place: not said to.
  func setAsideNote(saved path: DataPath) -> String? {
    guard let setAside, FileManager.default.fileExists(atPath: setAside.path) else { return nil }
    let file = dataDirectory.appendingPathComponent(path.description).path
    let start =
      "the saved file that could not be read at the start is still at \(setAside.path), set "
      + "aside: "
    guard FileManager.default.fileExists(atPath: file) else {
      return start + "this run saved nothing in its place (no change reached what is saved). To "
        + "have it back, fix it and move it to \(file)"
    }
    return start + "\(file) holds this run's state. To have the old one back, fix it and move "
      + "it over \(file)"
  }
}
