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
    let results: [LuaValue]
    do throws(LuaError) {
      results = try vm.evaluate(source, chunkName: file, in: sandbox)
    } catch {
      throw .load(file: file, message: error.description)
    }
    guard let table = results.first?.tableValue else {
      throw .load(
        file: file,
        message: "a feature must return a table with a reduce function, got "
          + (results.first?.typeName ?? "nothing"))
    }
    guard case let .function(reduce) = table["reduce"] else {
      let found = table["reduce"]
      throw .load(
        file: file,
        message: found == .nil
          ? "the returned table has no reduce function"
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
