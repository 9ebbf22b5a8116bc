import Composable
import Foundation
import IssueReporting
import LuaKit

/// A feature script loaded into its own Lua VM, with its state kept in Lua.
///
/// A feature is a Lua module with `reduce(state, action, env)`, and optionally
/// `initial_state()` and `migrate(state)`. It runs in the sandbox, where `require` finds the
/// built-in `composable` library and the modules beside the script, and nothing else.
///
/// Between actions the state lives in Lua: an action marshals only the action. Each action is
/// a transaction: if the reducer raises, runs past its budget, or returns a malformed effect,
/// every write it made is undone. Swift reads the state on demand (`state`, `decodeState`).
///
/// The VM is reached only under a lock, so a feature can be shared between the store that
/// runs it and the code that reads its state.
public final class LuaFeature: @unchecked Sendable {
  private let lock = NSLock()
  private let vm: LuaVM
  private var sandbox: LuaSandbox
  private var module: Module
  private let stateReference: LuaReference
  private let environment: LuaReference
  private let hostEnvironment = LuaFeatureEnvironment()
  /// When the state is written, for a feature that persists (`StateSaver`, shared with Swift
  /// reducers); set when a module is loaded.
  private(set) var saver: StateSaver?
  /// What the reducer gets instead of the state: a proxy that journals its writes.
  private let stateProxy: LuaReference
  /// Where the script was loaded from, for messages and for reloading.
  public var file: String { locked { fileName } }
  private var fileName: String

  /// The parts of a loaded module.
  private struct Module {
    let reduce: LuaReference
    let initialState: LuaReference?
    let migrate: LuaReference?
    let persistence: Persistence?
  }

  /// `reduce(state, action, env)`, ready to call for each action. It holds registry slots: the
  /// references it was made from (`module.reduce`, `stateProxy`, `environment`) keep them.
  private var step: LuaTransactionCall

  /// How the feature asked to be kept on disk (`Feature.persist = composable.persist{...}`).
  public struct Persistence: Equatable, Sendable {
    /// The file, relative to the host's data directory.
    public var path: String
    /// The state field to save, or nil for the whole state.
    public var select: String?
    /// Seconds of quiet before a save.
    public var debounce: Double
  }

  /// The feature's persistence, if it asked for it.
  public var persistence: Persistence? { locked { module.persistence } }

  /// Loads the feature at `url`. `state` replaces what `initial_state()` would give; `env` is
  /// what the reducer finds in its `env` argument, beside the host's `env` functions.
  public convenience init(
    contentsOf url: URL, state: LuaValue? = nil, env: LuaValue = [:],
    limits: LuaLimits = LuaLimits(), print: @escaping (String) -> Void = { Swift.print($0) }
  ) throws(LuaFeatureError) {
    guard let code = try? String(contentsOf: url, encoding: .utf8) else {
      throw .load(file: url.path, message: "the file cannot be read (missing, or not UTF-8 text)")
    }
    try self.init(
      source: code, file: url.lastPathComponent, directory: url.deletingLastPathComponent(),
      state: state, env: env, limits: limits, print: print)
  }

  /// Loads a feature from source. `file` names it in errors; `directory` is where `require`
  /// finds its sibling modules (none when nil).
  public init(
    source: String, file: String, directory: URL? = nil, state: LuaValue? = nil,
    env: LuaValue = [:], limits: LuaLimits = LuaLimits(),
    print: @escaping (String) -> Void = { Swift.print($0) }
  ) throws(LuaFeatureError) {
    do {
      let vm = try LuaVM(limits: limits)
      self.vm = vm
      self.fileName = file
      var resolvers: [any LuaModuleResolver] = [builtInModules]
      if let directory { resolvers.append(LuaModuleDirectories([directory])) }
      sandbox = try vm.makeSandbox(.init(
        print: print, modules: LuaModuleChain(resolvers: resolvers),
        preloaded: builtInPreloads(in: vm)))
      try Self.installEffectGlobals(vm: vm, sandbox: sandbox)
      module = try Self.loadModule(source, file: file, vm: vm, sandbox: sandbox)
      environment = try vm.reference(to: hostEnvironment.table(with: env, in: vm))
      let initial: LuaValue
      if let state {
        initial = state
      } else if let makeState = module.initialState {
        initial = try Self.call(vm, makeState, file: file, what: "initial_state()").first ?? [:]
      } else {
        initial = [:]
      }
      guard initial.tableValue != nil else {
        throw LuaFeatureError.load(
          file: file, message: "the initial state must be a table, got \(initial.typeName)")
      }
      stateReference = try vm.reference(to: initial)
      stateProxy = try vm.transactionalProxy(of: stateReference)
      step = try Self.step(module.reduce, stateProxy, environment, vm)
    } catch let error as LuaFeatureError {
      throw error
    } catch let error as LuaError {
      throw .load(file: file, message: error.description)
    } catch {
      throw .load(file: file, message: "\(error)")
    }
    saver = makeSaver(for: module.persistence)
  }

  /// `reduce(state, action, env)` as the step called for each action.
  private static func step(
    _ reduce: LuaReference, _ state: LuaReference, _ context: LuaReference, _ vm: LuaVM
  ) throws(LuaError) -> LuaTransactionCall {
    try LuaTransactionCall(function: reduce, state: state, context: context, in: vm)
  }

  /// `sleep`, `http` and `file` for code inside `effect.run`.
  private static func installEffectGlobals(vm: LuaVM, sandbox: LuaSandbox) throws(LuaError) {
    try vm.evaluate(
      "local effect = require('composable.effect') "
        + "sleep = effect.sleep http = effect.http_client file = effect.file_client",
      chunkName: "=effects", in: sandbox)
  }

  private static func loadModule(
    _ source: String, file: String, vm: LuaVM, sandbox: LuaSandbox
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
    switch table["persist"] {
    case .nil: break
    case let .table(options):
      guard let path = options["path"].stringValue else {
        throw .load(file: file, message: "persist.path must be a string, got \(options["path"].typeName)")
      }
      let debounce = options["debounce"] == .nil ? 1 : options["debounce"].doubleValue
      guard let debounce, Seconds.duration(debounce) != nil else {
        throw .load(
          file: file,
          message: "persist.debounce: expected \(Seconds.expected), got "
            + LuaEffectRunner.describe(options["debounce"]))
      }
      persistence = Persistence(
        path: path, select: options["select"].stringValue, debounce: debounce)
    case let other:
      throw .load(file: file, message: "persist must be a table (composable.persist{...}), got \(other.typeName)")
    }
    return Module(
      reduce: reduce, initialState: try optionalFunction("initial_state"),
      migrate: try optionalFunction("migrate"), persistence: persistence)
  }

  private static func call(
    _ vm: LuaVM, _ function: LuaReference, file: String, what: String
  ) throws(LuaFeatureError) -> [LuaValue] {
    do throws(LuaError) { return try vm.call(function) } catch {
      throw .load(file: file, message: "\(what) failed: \(error)")
    }
  }

  private func locked<Result, Failure: Error>(
    _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }

  /// Makes `env.uuid()`, `env.now()` and `env.random()` answer from `dependencies`.
  public func use(_ dependencies: DependencyValues) {
    hostEnvironment.use(dependencies)
  }

  // MARK: Reducing

  /// Runs the reducer on `action` as a transaction. `interpret` turns what the reducer
  /// returned into something the host runs; if the reducer or `interpret` fails, every write of
  /// the action is undone and the error is thrown.
  public func reduce<Interpreted>(
    _ action: LuaValue, interpret: (LuaValue) throws(LuaFeatureError) -> Interpreted
  ) throws(LuaFeatureError) -> Interpreted {
    var wrote = false
    return try reduce(action, wrote: &wrote, interpret: interpret)
  }

  /// `reduce`, setting `wrote` to whether the action wrote to the state (known only for
  /// features that persist, false for the others: nobody asks).
  ///
  /// `wrote` is an argument rather than part of a returned tuple: on this path, once per action,
  /// a generic tuple cost a runtime metadata lookup per call.
  func reduce<Interpreted>(
    _ action: LuaValue, wrote: inout Bool,
    interpret: (LuaValue) throws(LuaFeatureError) -> Interpreted
  ) throws(LuaFeatureError) -> Interpreted {
    lock.lock()
    defer { lock.unlock() }
    let returned: LuaValue
    do throws(LuaError) {
      returned = try vm.callTransaction(step, action: action)  // rolled back if it fails
    } catch {
      throw .reduce(action: action.description, error: error)
    }
    let interpreted: Interpreted
    do throws(LuaFeatureError) {
      interpreted = try interpret(returned)
    } catch {
      vm.rollbackTransaction()
      throw error
    }
    if let saver, vm.transactionWrote {
      wrote = true
      saver.changed()
    }
    vm.commitTransaction()
    return interpreted
  }

  // MARK: Reading and writing the state

  /// A snapshot of the state.
  public func state() throws(LuaFeatureError) -> LuaValue {
    try locked { () throws(LuaFeatureError) -> LuaValue in
      do throws(LuaError) { return try vm.value(of: stateReference, rootName: "state") } catch {
        throw .conversion(error)
      }
    }
  }

  /// The state decoded into a Swift type.
  public func decodeState<State: Decodable>(_ type: State.Type) throws(LuaFeatureError) -> State {
    try locked { () throws(LuaFeatureError) -> State in
      do throws(LuaError) {
        return try LuaDecoder().decode(type, from: stateReference, in: vm, rootName: "state")
      } catch {
        throw .conversion(error)
      }
    }
  }

  // MARK: Persistence

  /// A saver for `persistence`, writing `persistedFile()`; nil for a feature that does not
  /// persist. (It holds the feature weakly: the feature holds it.)
  private func makeSaver(for persistence: Persistence?) -> StateSaver? {
    guard let persistence else { return nil }
    return StateSaver(path: persistence.path) { [weak self] in
      guard let self else { throw CancellationError() }
      return try self.persistedFile()
    }
  }

  /// Writes the state now if an action changed it since the last save (a save still waiting,
  /// say): for a host about to exit, on end of input or a signal.
  public func savePending(files: FileClient) async throws {
    try await locked { saver }?.savePending(files: files)
  }

  /// `savePending` without waiting on anything: `write(path, contents)` does the writing. For a
  /// signal handler, which must not wait for tasks (the threads that would run them may be the
  /// ones it stopped).
  public func savePending(write: (String, [UInt8]) throws -> Void) throws {
    try locked { saver }?.savePending(write: write)
  }

  /// What to save: the state, or its selected field, as a Lua data file (`LuaDataFile`), which
  /// holds every value the state can hold exactly. A value that is no data (a function kept in
  /// the state) is refused here, with its field named.
  public func persistedFile() throws(LuaFeatureError) -> [UInt8] {
    let state = try self.state()
    let (selected, root): (LuaValue, String)
    if let select = persistence?.select {
      (selected, root) = (state[LuaValue(select)], "state.\(select)")
    } else {
      (selected, root) = (state, "state")
    }
    let header = "The state \(file) saved. composable reads it back as Lua data: literals only."
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
  @discardableResult
  public func restorePersisted(
    files: FileClient, report: @escaping @Sendable (String) -> Void = { reportIssue($0) }
  ) async throws(LuaFeatureError) -> PersistedState.Loaded<LuaValue> {
    guard let persistence else { return .missing }
    let wholeState = persistence.select == nil
    let loaded = await PersistedState.load(from: persistence.path, files: files, report: report) {
      bytes in try self.readSaved(bytes, path: persistence.path, wholeState: wholeState)
    }
    guard case let .saved(value) = loaded else { return loaded }
    try locked { () throws(LuaFeatureError) in
      try writeState(persistence.select.map { LuaValue($0) } ?? .nil, value)
    }
    return loaded
  }

  private func readSaved(
    _ bytes: [UInt8], path: String, wholeState: Bool
  ) throws(PersistedState.NotAState) -> LuaValue {
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw .init(reason: "it is not a saved state: it is not UTF-8 text")
    }
    let value: LuaValue
    do throws(LuaError) {
      value = try locked { () throws(LuaError) in try vm.readDataFile(text, chunkName: path) }
    } catch {
      guard let json = try? JSONDecoder().decode(LuaValue.self, from: Data(bytes)) else {
        throw .init(reason: "it is not a saved state: \(error.message)")
      }
      value = json
    }
    if wholeState, value.tableValue == nil {
      throw .init(reason: "it is not a saved state: expected a table, got \(value.typeName)")
    }
    return value
  }

  // MARK: Coroutines of effects

  /// A coroutine that will run `function` (the body of an `effect.run`).
  public func makeCoroutine(_ function: LuaReference) throws(LuaFeatureError) -> LuaReference {
    try locked { () throws(LuaFeatureError) -> LuaReference in
      do throws(LuaError) { return try vm.makeCoroutine(function) } catch { throw .conversion(error) }
    }
  }

  /// Resumes an effect's coroutine with the result of what it last asked for.
  public func resume(
    _ coroutine: LuaReference, with arguments: [LuaValue] = []
  ) throws(LuaError) -> LuaResumption {
    try locked { () throws(LuaError) -> LuaResumption in try vm.resume(coroutine, with: arguments) }
  }

  /// `action` passed through the wrappers that composition put on an effect, innermost first.
  public func wrap(_ action: LuaValue, with wrappers: [LuaReference]) throws(LuaError) -> LuaValue {
    guard !wrappers.isEmpty else { return action }
    return try locked { () throws(LuaError) -> LuaValue in
      var action = action
      for wrapper in wrappers.reversed() { action = try vm.call(wrapper, with: action) }
      return action
    }
  }

  /// Replaces the whole state with `value`, encoded (for tests that start from a given state).
  public func replaceState<Value: Encodable>(with value: Value) throws(LuaFeatureError) {
    let encoded = try luaValue(of: value, name: "state")
    guard case let .table(table) = encoded else {
      throw .conversion(.conversion(path: "state", message: "expected a table, got \(encoded.typeName)"))
    }
    try locked { () throws(LuaFeatureError) in try writeState(.nil, .table(table)) }
  }

  /// The host's write to the state, under the lock: `value` into `field`, or, when `field` is
  /// nil, as the whole state (refilled in place, so the reducer's proxy stays bound to it).
  private func writeState(_ field: LuaValue, _ value: LuaValue) throws(LuaFeatureError) {
    do throws(LuaError) {
      try vm.writeState(value, at: field == .nil ? nil : field, through: stateProxy)
    } catch {
      throw .conversion(error)
    }
  }

  /// `value` as Lua sees it: encoded by `LuaEncoder` (an enum becomes the action shape).
  public func luaValue<Value: Encodable>(of value: Value, name: String = "action") throws(LuaFeatureError) -> LuaValue {
    try locked { () throws(LuaFeatureError) -> LuaValue in
      do throws(LuaError) {
        return try vm.value(of: LuaEncoder().encode(value, in: vm, rootName: name))
      } catch {
        throw .conversion(error)
      }
    }
  }

  /// A Lua value decoded into a Swift type, by `LuaDecoder`.
  public func decode<Value: Decodable>(
    _ type: Value.Type, from value: LuaValue, name: String = "action"
  ) throws(LuaFeatureError) -> Value {
    try locked { () throws(LuaFeatureError) -> Value in
      do throws(LuaError) {
        return try LuaDecoder().decode(type, from: value, in: vm, rootName: name)
      } catch {
        throw .conversion(error)
      }
    }
  }

  // MARK: Hot swap

  /// Replaces the reducer with the one in `source`, keeping the state. The new code loads in a
  /// fresh sandbox; if it is broken, the error is thrown and the old reducer stays. A
  /// `migrate(state)` in the new code runs once, as a transaction.
  public func swap(toSource source: String, file: String? = nil) throws(LuaFeatureError) {
    try locked { () throws(LuaFeatureError) in
      let file = file ?? self.fileName
      let fresh: LuaSandbox
      do throws(LuaError) {
        fresh = try vm.makeSandbox(sandbox.configuration)
        try Self.installEffectGlobals(vm: vm, sandbox: fresh)
      } catch {
        throw .load(file: file, message: error.description)
      }
      let loaded = try Self.loadModule(source, file: file, vm: vm, sandbox: fresh)
      if let migrate = loaded.migrate {
        do throws(LuaError) {
          try vm.callTransaction(migrate, state: stateProxy)  // rolled back if it fails
          vm.commitTransaction()
        } catch {
          throw .load(file: file, message: "migrate(state) failed: \(error)")
        }
      }
      do throws(LuaError) {
        step = try Self.step(loaded.reduce, stateProxy, environment, vm)
      } catch {
        throw .load(file: file, message: error.description)
      }
      sandbox = fresh
      module = loaded
      if loaded.persistence?.path != saver?.path { saver = makeSaver(for: loaded.persistence) }
      self.fileName = file
    }
  }
}
