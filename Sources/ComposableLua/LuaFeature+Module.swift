import Composable
import Foundation
import IssueReporting
import LuaKit

/// Loading a feature's module: what it must return, and what `persist` may say.
extension LuaFeature {
  /// The parts of a loaded module.
  struct Module {
    let reduce: LuaReference
    let initialState: LuaReference?
    let migrate: LuaReference?
    let persistence: Persistence?
    /// `persist.is_duplicate(old, new)`: whether a save would write nothing worth writing.
    let isDuplicate: LuaReference?
  }

  static func loadModule(
    _ source: LuaString, file: String, vm: LuaVM, sandbox: LuaSandbox
  ) throws(LuaFeatureError) -> Module {
    let result: LuaReference?
    let fields: [LuaString: LuaReference]?
    let table: LuaTable
    do throws(LuaError) {
      result = try vm.evaluateKeepingResult(source, chunkName: file, in: sandbox)
      fields = try result.flatMap { reference throws(LuaError) in
        try vm.stringKeyedFields(of: reference)
      }
      table = try Self.moduleTable(fields ?? [:], vm: vm)
    } catch {
      throw .load(file: file, message: error.withoutLibraryFrames.description)
    }
    guard fields != nil else {
      let found = result.map { (try? vm.value(of: $0))?.typeName ?? $0.typeName }
      throw .load(
        file: file,
        message: "a feature must return a table with a reduce function, got "
          + (found ?? "nothing"))
    }
    if let (found, meant) = misspeltField(in: table) {
      throw .load(
        file: file,
        message: "the returned table has \(found) but no \(meant), which the host reads: did you "
          + "mean \(meant)?")
    }
    guard case let .function(reduce) = table["reduce"] else {
      let found = table["reduce"]
      // A module whose fields come from a metatable (`setmetatable({}, Base)`): what `M.reduce`
      // finds in Lua is not read.
      let inherited =
        (result.flatMap { try? vm.hasMetatable($0) } ?? false)
        ? " of its own (the host reads the table's own fields, not what its metatable's "
          + "__index gives: set reduce on the table itself)" : ""
      throw .load(
        file: file,
        message: found == .nil
          ? "the returned table has no reduce function" + inherited
          : "reduce must be a function, got \(found.typeName)")
    }
    func optionalFunction(_ name: String) throws(LuaFeatureError) -> LuaReference? {
      switch table[name] {
      case .nil: return nil
      case let .function(function): return function
      case let other:
        throw .load(file: file, message: "\(name) must be a function, got \(other.typeName)")
      }
    }
    var persistence: Persistence?
    var isDuplicate: LuaReference?
    switch table["persist"] {
    case .nil: break
    case let .table(options):
      // A misspelt field (`debouce`) is named, not ignored for the default it leaves.
      for key in options.entries.keys {
        guard let name = key.stringValue, Self.persistFields.contains(name) else {
          throw .load(
            file: file,
            message: "persist\(LuaValue.pathComponent(key, atRoot: false)): persist takes no such "
              + "field; its fields are " + Self.persistFields.joined(separator: ", "))
        }
      }
      guard case let .string(pathBytes) = options["path"] else {
        throw .load(
          file: file, message: "persist.path must be a string, got \(options["path"].typeName)")
      }
      let path: DataPath
      do { path = try DataPath(validating: pathBytes.bytes) } catch {
        throw .load(file: file, message: "persist.path: \(error)")
      }
      guard !path.isRoot else {
        throw .load(
          file: file,
          message: "persist.path: \(LuaValue.string(pathBytes)) names the data directory itself; "
            + "give a file name")
      }
      // A name no save could be written under: every save would fail, and a run lose its state
      // (a write's temporary name), or a host's file would be replaced (the data directory's
      // marker), on every host and at a reload as at a start.
      do {
        try FileClient.refuseTemporaryName(path)
        try FileClient.refuseHostName(path)
      } catch {
        throw .load(file: file, message: "persist.path: \(error)")
      }
      let debounce = options["debounce"] == .nil ? 1 : options["debounce"].doubleValue
      guard let debounce, Seconds.duration(debounce) != nil else {
        throw .load(
          file: file,
          message: "persist.debounce: expected \(Seconds.expected), got "
            + LuaValue.describeForMessage(options["debounce"]))
      }
      persistence = Persistence(
        path: path, select: try Self.selectedField(options["select"], file: file),
        debounce: debounce)
      switch options["is_duplicate"] {
      case .nil: break
      case let .function(function): isDuplicate = function
      case let other:
        throw .load(
          file: file,
          message: "persist.is_duplicate must be a function(old, new), got \(other.typeName)")
      }
    case let other:
      throw .load(
        file: file,
        message: "persist must be a table (composable.persist{...}), got \(other.typeName)")
    }
    return Module(
      reduce: reduce, initialState: try optionalFunction("initial_state"),
      migrate: try optionalFunction("migrate"), persistence: persistence,
      isDuplicate: isDuplicate)
  }
  /// The module's fields as the checks below read them: functions as handles, `persist` as a
  /// snapshot (its errors are the module's), any other field as a snapshot when one can be
  /// taken and as a handle when not. The table is not read whole: a module may hold what no
  /// snapshot takes (a class whose `__index` is itself, a userdata), as any Lua module may.
  private static func moduleTable(
    _ fields: [LuaString: LuaReference], vm: LuaVM
  ) throws(LuaError) -> LuaTable {
    var table = LuaTable()
    for (key, reference) in fields {
      let name = String(decoding: key.bytes, as: UTF8.self)
      if reference.typeName == "function" {
        table[.string(key)] = .function(reference)
      } else if name == "persist" {
        table[.string(key)] = try vm.value(of: reference, rootName: name)
      } else {
        table[.string(key)] = (try? vm.value(of: reference)) ?? .other(reference)
      }
    }
    return table
  }

  /// The fields of a feature's table the host reads.
  static let moduleFields = ["reduce", "initial_state", "migrate", "persist"]

  /// A field of the feature's table that reads as one of `moduleFields` mistyped, where that
  /// one is missing (`intial_state`; `persistence = composable.persist{...}`): the feature would
  /// start from no state, or keep nothing on disk, and say nothing. The field, and the one meant.
  static func misspeltField(in table: LuaTable) -> (found: String, meant: String)? {
    let others = table.entries.keys.compactMap(\.stringValue).filter {
      !moduleFields.contains($0)
    }.sorted()
    for meant in moduleFields where table[meant] == .nil {
      if let found = others.first(where: { NearestName.nearest(to: $0, among: [meant]) != nil }) {
        return (found, meant)
      }
      // What `composable.persist{...}` made, under another name: persist's fields, with its path
      // and the debounce it always sets.
      if meant == "persist",
        let found = others.first(where: { name in
          guard case let .table(spec) = table[name], case .string = spec["path"],
            spec["debounce"].doubleValue != nil
          else { return false }
          return spec.entries.keys.allSatisfy { persistFields.contains($0.stringValue ?? "") }
        })
      {
        return (found, meant)
      }
    }
    return nil
  }

  /// The fields `persist{...}` takes.
  static let persistFields = ["path", "select", "debounce", "is_duplicate"]

  /// `persist{ select }`: nil for the whole state, or the name of one field of the state.
  static func selectedField(_ value: LuaValue, file: String) throws(LuaFeatureError) -> String? {
    switch value {
    case .nil: return nil
    case let .string(name):
      guard let text = String(validating: name.bytes, as: UTF8.self), !text.isEmpty else {
        throw .load(file: file, message: "persist.select must name a field of the state")
      }
      guard !text.contains(".") else {
        throw .load(
          file: file,
          message: "persist.select = \(value) is a path; it names one field of the state. To "
            + "fix, keep what is saved under one field (select = \"\(text.prefix { $0 != "." })\")")
      }
      return text
    default:
      throw .load(
        file: file,
        message: "persist.select must be a string naming a field of the state, got "
          + LuaValue.describeForMessage(value))
    }
  }
}
