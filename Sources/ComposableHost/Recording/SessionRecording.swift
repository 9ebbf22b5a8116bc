import Composable
import ComposableLua
import Foundation
import LuaKit

/// A recorded session, as `:save` writes it and `composable replay` reads it: the feature, a
/// fingerprint of its code, the env, the initial state, and every action in order with what a
/// replay needs (see `RecordedAction`). Effects' results are in it as the actions they sent,
/// so a replay needs no network, timer or file.
///
/// On disk it is a Lua data file (`LuaDataFile`): readable, diffable, and read back with no
/// code run. docs/sessions.md describes the format; `version` says which one a file follows.
public struct SessionRecording: Equatable, Sendable {
  /// What the file's `format` field holds.
  public static let format = "composable-session"
  /// The version this build writes, and the newest it reads.
  public static let version = 1

  /// The feature's file: relative to the session file on disk, as given in memory.
  public var feature: String
  /// `CodeFingerprint` of the feature and the modules it required when recorded.
  public var code: String
  /// The feature's `env`: a table, or nil for none.
  public var env: LuaValue
  /// The state the first action was reduced from.
  public var initialState: LuaValue
  /// Every action in the order it was reduced, those effects sent back included.
  public var actions: [RecordedAction]

  /// A session of `actions` from `initialState`. `feature` is kept as given; in a file, it should
  /// be the feature's path relative to the session file's folder (`featureFile(besideSession:)`).
  ///
  /// ```swift
  /// let file = URL(fileURLWithPath: "features/counter.lua")
  /// let feature = try LuaFeature(contentsOf: file)
  /// let recording = SessionRecording(
  ///   feature: "counter.lua", code: CodeFingerprint.of(feature, file: file), env: [:],
  ///   initialState: ["count": 0],
  ///   actions: [RecordedAction(action: ["type": "increment"], fromEffect: false, time: 0.5)])
  /// try recording.write(to: URL(fileURLWithPath: "features/counter-session.lua"))
  /// ```
  public init(
    feature: String, code: String, env: LuaValue, initialState: LuaValue,
    actions: [RecordedAction]
  ) {
    self.feature = feature
    self.code = code
    self.env = env
    self.initialState = initialState
    self.actions = actions
  }
}

/// A session file that cannot be read: the file, where in it, and what is wrong.
public struct SessionFileError: Error, CustomStringConvertible, Sendable {
  /// The session file's name.
  public let file: String
  /// What is wrong, with the field's path when a field is at fault (`actions[2].at: ...`).
  public let message: String

  public var description: String { "\(file): \(message)" }
}

extension SessionRecording {
  /// The session as a Lua value, fields named as in the file.
  public var luaValue: LuaValue {
    var table = LuaTable()
    table["format"] = .string(LuaString(Self.format))
    table["version"] = .integer(Self.version)
    table["feature"] = .string(LuaString(feature))
    table["code"] = .string(LuaString(code))
    table["env"] = env
    table["initial_state"] = initialState
    // No actions: `{}`, where an empty list would be written `{ nil }` (a list's mark), which
    // reads the same but looks like a lost action to the person reading the file.
    table["actions"] = .table(
      actions.isEmpty ? LuaTable() : LuaTable(array: actions.map(\.luaValue)))
    return .table(table)
  }

  /// How a session file starts.
  static let headerStart = "-- A ComposableLua session"

  /// Writes the session to `url` (whole, through a temporary file: a reader never sees half).
  public func write(to url: URL) throws {
    let header = """
      \(Self.headerStart.dropFirst(3)) (format \(Self.format), version \(Self.version)).
      `composable replay \(url.lastPathComponent)` runs it again; docs/sessions.md describes it.
      """
    let text = try LuaDataFile.text(
      of: luaValue, root: "session", header: header, maximumDepth: Self.maximumDepth,
      jsonNull: true)  // an HTTP response's json holds it
    try ReplacedFile.write(Array(text.utf8), to: url)
  }

  /// How deep a session file's tables nest: a value as deep as any (`LuaValue.maximumDepth`)
  /// inside the file's own three levels (the session, its list of actions, an action's record).
  static let maximumDepth = LuaValue.maximumDepth + 3

  /// Reads the session file at `url`, checking every field.
  public static func read(from url: URL) throws -> SessionRecording {
    let name = url.lastPathComponent
    let bytes: [UInt8]
    do { bytes = try LuaSourceFile.bytes(of: url, limit: LuaDataFile.maximumSize) } catch {
      throw SessionFileError(file: name, message: "\(error)")
    }
    let value: LuaValue
    do {
      value = try LuaDataFile.read(  // literals only: nothing in it runs
        bytes, chunkName: name, maximumDepth: Self.maximumDepth, jsonNull: true)
    } catch {
      throw SessionFileError(file: name, message: "not a session file: \(error)")
    }
    do throws(SessionFileError.Field) {
      return try SessionRecording(reading: value)
    } catch {
      throw SessionFileError(file: name, message: "\(error.path): \(error.message)")
    }
  }

  /// The feature's file as a session file read from `sessionFile` names it: relative to the
  /// session file's folder, and under it, symlinks included. A session from someone else may
  /// name any text there; it is checked as a `DataPath` (no control byte, no `..`, not
  /// absolute) and resolved, and a file outside the folder is refused. (A feature named on the
  /// command line, `composable replay --feature F`, is the user's own choice and not checked.)
  public func featureFile(besideSession sessionFile: URL) throws(SessionFileError) -> URL {
    let name = sessionFile.lastPathComponent
    let toFix = "To fix, replay it on a feature you name: composable replay --feature FILE \(name)"
    let path: DataPath
    do { path = try DataPath(validating: feature.utf8) } catch {
      throw SessionFileError(file: name, message: "feature: \(error). \(toFix)")
    }
    let folder = sessionFile.deletingLastPathComponent().standardizedFileURL
    let joined = folder.appendingPathComponent(path.description)
    guard let realFolder = Self.realPath(folder.path) else {
      throw SessionFileError(file: name, message: "its folder \(folder.path) cannot be read")
    }
    // Not there: the session was moved away from its feature, or the feature was.
    guard let real = Self.realPath(joined.path) else {
      throw SessionFileError(
        file: name,
        message: "feature: \(path) is not beside the session file (\(joined.path) does not "
          + "exist). \(toFix)")
    }
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: real, isDirectory: &isFolder), isFolder.boolValue {
      throw SessionFileError(
        file: name, message: "feature: \(path) is a folder, not a feature's file. \(toFix)")
    }
    guard real.hasPrefix(realFolder == "/" ? "/" : realFolder + "/") else {
      throw SessionFileError(
        file: name,
        message: "feature: \(path) leads outside the session file's folder (through a symlink, "
          + "to \(real)). \(toFix)")
    }
    return URL(fileURLWithPath: real)
  }

  /// `path` with every symlink resolved, or nil when it does not exist.
  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  init(reading value: LuaValue) throws(SessionFileError.Field) {
    let fields = try FieldReader(
      value, path: "session",
      known: ["format", "version", "feature", "code", "env", "initial_state", "actions"])
    guard fields["format"] == .string(LuaString(Self.format)) else {
      throw .init(
        path: "format",
        message: "expected \"\(Self.format)\", got \(fields["format"]): not a session file")
    }
    let version = try fields.integer("version")
    guard version >= 1, version <= Self.version else {
      throw .init(
        path: "version",
        message: "this composable reads versions 1 to \(Self.version), the file is \(version)")
    }
    feature = try fields.string("feature")
    code = try fields.string("code")
    env = fields["env"]
    guard env == .nil || env.tableValue != nil else {
      throw .init(path: "env", message: "expected a table, got \(env.typeInFile)")
    }
    initialState = fields["initial_state"]
    guard initialState != .nil else {
      throw .init(
        path: "initial_state",
        message: "missing: a session holds the state it began from (a table), which its actions "
          + "are replayed on")
    }
    // The file allows its own levels around each value; each value gets the limit a state has.
    guard initialState.height() != nil else {
      throw .init(
        path: "initial_state",
        message: "nested more than \(LuaValue.maximumDepth) levels deep, as no state may be")
    }
    guard initialState.tableValue != nil else {
      let found = initialState.typeInFile
      throw .init(path: "initial_state", message: "expected the state (a table), got \(found)")
    }
    let list = try fields.table("actions")
    // `{}` as well as the `{ nil }` an empty list is written as (a list marked as one).
    guard list.isSequence || list.isEmpty else {
      let key = list.entries.keys.first { ($0.intValue ?? 0) < 1 }.map { "\($0)" } ?? "after a gap"
      throw .init(
        path: "actions", message: "expected a list of actions, got a table with the key \(key)")
    }
    actions = []
    var anEffectBefore = false
    for (index, element) in list.sequence.enumerated() {
      let path = "actions[\(index + 1)]"
      let action = try RecordedAction(reading: element, path: path)
      // An action an effect sent (at once too) needs an effect started before it. A session cut
      // short at its start (a hand-trimmed one) read as if it had one: a replay sent the action
      // as received, and a test written from it waited for an action no effect sends.
      if action.fromEffect, !anEffectBefore {
        throw .init(
          path: path + ".from_effect",
          message: "sent by an effect, but no action before it returned one (the session lost "
            + "the action that started it). To fix, keep the actions before it, or remove it")
      }
      if action.effect != .nil { anEffectBefore = true }
      actions.append(action)
    }
  }
}

extension RecordedAction {
  /// The action as the file holds it: `{ action = ..., at = 1.25 }`, with `from_effect`,
  /// `draws` (`{ { "uuid", "..." } }`), `effect`, `error`, `did_nothing`, `after_jump` and
  /// `sent_at_once` only when they say something.
  var luaValue: LuaValue {
    var table = LuaTable()
    table["action"] = action
    table["at"] = .number(time)
    if fromEffect { table["from_effect"] = true }
    if !draws.isEmpty {
      table["draws"] = .table(
        LuaTable(
          array: draws.map { .table(LuaTable(array: [.string(LuaString($0.name)), $0.value])) }))
    }
    if effect != .nil { table["effect"] = effect }
    if let error { table["error"] = .string(LuaString(error)) }
    if didNothing { table["did_nothing"] = true }
    if afterJump { table["after_jump"] = true }
    if sentAtOnce { table["sent_at_once"] = true }
    return .table(table)
  }

  init(reading value: LuaValue, path: String) throws(SessionFileError.Field) {
    let fields = try FieldReader(
      value, path: path,
      known: [
        "action", "at", "from_effect", "draws", "effect", "error", "did_nothing", "after_jump",
        "sent_at_once",
      ])
    action = fields["action"]
    guard action.tableValue != nil else {
      throw .init(
        path: path + ".action", message: "expected an action table, got \(action.typeInFile)")
    }
    guard action.height() != nil else {
      throw .init(
        path: path + ".action",
        message: "nested more than \(LuaValue.maximumDepth) levels deep, as no action may be")
    }
    guard let at = fields["at"].doubleValue, at.isFinite, at >= 0 else {
      throw .init(path: path + ".at", message: "expected seconds (a number, 0 or more)")
    }
    time = at
    switch fields["from_effect"] {
    case .nil: fromEffect = false
    case let .boolean(flag): fromEffect = flag
    case let other:
      throw .init(
        path: path + ".from_effect", message: "expected a boolean, got \(other.typeInFile)")
    }
    draws = []
    if fields["draws"] != .nil {
      let list = try fields.table("draws")
      for (index, element) in list.sequence.enumerated() {
        let pair = element.tableValue?.sequence ?? []
        let place = "\(path).draws[\(index + 1)]"
        guard pair.count == 2, let name = pair[0].stringValue else {
          throw .init(path: place, message: "expected { \"name\", value }")
        }
        // What each function can answer at all; a random integer's range is checked when the
        // call that asks for it comes.
        let draw = LuaEnvironmentTape.Draw(name: name, value: pair[1])
        guard ["uuid", "now", "random"].contains(name) else {
          throw .init(
            path: place,
            message: "expected the name of uuid, now or random, got \(pair[0].description)")
        }
        guard draw.isOfItsFunctionsKind else {
          let kind = name == "uuid" ? "a string" : name == "now" ? "a finite number" : "a number"
          let value = draw.value
          let got = value.doubleValue != nil ? value.description(limit: 40) : value.typeInFile
          throw .init(path: place, message: "env.\(name)() answers \(kind), got \(got)")
        }
        draws.append(draw)
      }
    }
    effect = fields["effect"]
    switch fields["error"] {
    case .nil: error = nil
    case let .string(text): error = text.string ?? "\(text)"
    case let other:
      throw .init(path: path + ".error", message: "expected a string, got \(other.typeInFile)")
    }
    switch fields["did_nothing"] {
    case .nil: didNothing = false
    case let .boolean(flag): didNothing = flag && effect == .nil && error == nil
    case let other:
      throw .init(
        path: path + ".did_nothing", message: "expected a boolean, got \(other.typeInFile)")
    }
    switch fields["after_jump"] {
    case .nil: afterJump = false
    case let .boolean(flag): afterJump = flag
    case let other:
      throw .init(
        path: path + ".after_jump", message: "expected a boolean, got \(other.typeInFile)")
    }
    switch fields["sent_at_once"] {
    case .nil: sentAtOnce = false
    case let .boolean(flag) where !flag || fromEffect: sentAtOnce = flag
    case .boolean:
      throw .init(
        path: path + ".sent_at_once", message: "an action a person typed was not sent by an effect")
    case let other:
      throw .init(
        path: path + ".sent_at_once", message: "expected a boolean, got \(other.typeInFile)")
    }
  }
}

extension SessionFileError {
  /// A field that is not what the format says: its path in the file, and why.
  public struct Field: Error, Sendable {
    /// Where the field is in the file: `version`, `actions[3].draws[1]`.
    public let path: String
    /// What is wrong with it: what the format expects there, and mostly what was found.
    public let message: String
  }
}

/// Reads the fields of one table of a session file, naming the path in each error.
private struct FieldReader {
  let table: LuaTable
  let path: String

  /// Reads `value`, a table whose every field is one of `known`: a field the format does not
  /// have (`intial_state`, misspelt) is an error naming it, where it was passed over and the
  /// session replayed without what it meant to say.
  init(_ value: LuaValue, path: String, known: [String]) throws(SessionFileError.Field) {
    guard let table = value.tableValue else {
      throw .init(path: path, message: "expected a table, got \(value.typeInFile)")
    }
    self.table = table
    self.path = path
    let unknown = table.entries.keys.filter { key in
      !(key.stringValue.map { known.contains($0) } ?? false)
    }
    if let first = unknown.sorted(by: { $0.description < $1.description }).first {
      let name = first.stringValue.flatMap { $0.isLuaWord ? $0 : nil }
      throw .init(
        path: name.map { at($0) } ?? "\(path == "session" ? "" : path)[\(first)]",
        message: "the format has no such field; \(path == "session" ? "a session" : "an action") "
          + "has " + known.joined(separator: ", "))
    }
  }

  subscript(name: String) -> LuaValue { table[name] }

  /// Where field `name` is, as an error names it: `version`, `actions[3].draws`.
  func at(_ name: String) -> String { path == "session" ? name : "\(path).\(name)" }

  func string(_ name: String) throws(SessionFileError.Field) -> String {
    guard let text = table[name].stringValue else {
      throw .init(path: at(name), message: "expected a string, got \(table[name].typeInFile)")
    }
    return text
  }

  func integer(_ name: String) throws(SessionFileError.Field) -> Int {
    guard let number = table[name].intValue else {
      throw .init(path: at(name), message: "expected an integer, got \(table[name].typeInFile)")
    }
    return number
  }

  func table(_ name: String) throws(SessionFileError.Field) -> LuaTable {
    guard let inner = table[name].tableValue else {
      throw .init(path: at(name), message: "expected a table, got \(table[name].typeInFile)")
    }
    return inner
  }
}

extension LuaValue {
  /// The value's type as a session file's errors name it: json.null, which the file may hold
  /// where an HTTP response has it, by its name (it was "userdata").
  fileprivate var typeInFile: String {
    if case let .other(reference) = self, reference.isNull { return "json.null" }
    return typeName
  }
}
