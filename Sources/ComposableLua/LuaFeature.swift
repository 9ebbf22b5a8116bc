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
/// The VM and what changes with it are reached through one `LuaVMQueue`, one caller at a time,
/// so a feature can be shared between the store that runs it and the code that reads its state.
public final class LuaFeature: Sendable {
  /// The VM, and what changes with its code: reached only through `queue.access`.
  let queue: LuaVMQueue<Loaded>

  /// What a feature's VM holds beside the state, replaced together when code is swapped in.
  struct Loaded {
    var sandbox: LuaSandbox
    var module: Module
    /// `reduce(state, action, env)`, ready to call for each action. It holds registry slots:
    /// the references it was made from (`module.reduce`, `stateProxy`, `environment`) keep them.
    var step: LuaTransactionCall
    /// The function `step` calls (`stepFunction`), kept alive here as `step` keeps only its slot.
    var stepFunction: LuaReference
    /// Where the script was loaded from, for messages and for reloading.
    var fileName: String
    /// When the state is written, for a feature that persists (`StateSaver`, shared with Swift
    /// reducers).
    var saver: StateSaver?
    /// A plain copy of what was last saved or restored, for `persist.is_duplicate`.
    var lastSaved: LuaReference? = nil
    /// Where the last swap's `migrate(state)` changed the state (none without one).
    var migrationChanges: Result<[LuaDifference], LuaFeatureError> = .success([])
    /// The fingerprint of the code (`LuaFeature.codeFingerprint(of:modules:)`), which a saved
    /// state keeps, so that a restore by other code runs `migrate(state)` on it.
    var codeFingerprint: String
    /// What `migrate(state)` changed in the state restored, when it ran on it (the state was
    /// saved by other code); nil when it did not run.
    var restoreMigration: Result<[LuaDifference], LuaFeatureError>? = nil
    /// Where a state restored from other code's file (after `migrate`) is not shaped as the
    /// initial state: the first places and how many in all; nil where it is, or not restored.
    var restoredShapeGaps: (gaps: [RestoredShapeGap], count: Int)? = nil
    /// After a swap: what the new code's `initial_state()` gives, and where the state (after its
    /// `migrate`) is not shaped as it (nil where it is, or with no `initial_state`).
    /// Whether the swap's `initial_state()` gives another state than the old code's did.
    var initialStateChanged = false
    /// What is wrong with the swap's `initial_state()`, when a run of its code could not start.
    var initialStateProblem: String? = nil
    var reloadedShapeGaps: (gaps: [RestoredShapeGap], count: Int)? = nil
    /// A digest of the source the code was loaded from (`CodeDigest`), for `holdsLoadedCode`.
    var sourceDigest: UInt64 = 0
    /// Whether a swap to new code failed since this code was loaded (the old code runs on).
    var swapFailed = false
    /// `expressionGuardSource` compiled, at the first expression (`evaluate`).
    var expressionGuard: LuaReference? = nil
  }

  /// The files of the modules the feature required, beside it (none without a directory).
  public let moduleFiles: LuaModuleFiles?

  let stateReference: LuaReference
  let environment: LuaReference
  let hostEnvironment = LuaFeatureEnvironment()
  /// What a write to the state outside `reduce` raises: a module local, a coroutine or an
  /// effect's wrapper holding a state table may read it, not write it.
  static let readOnlyMessage = "state changes only in reduce: send an action"

  /// The copies of the state stores hold, by the type they hold it as: one per feature and
  /// type, whichever reducer was made for it, so that a reducer made again for every action (a
  /// `body`'s) still knows what it gave out (`StateWriteBack`).
  let writeBacks = LuaFeatureWriteBacks()
  /// The actions its reducers made for its refusals, so that refusing one sends no other.
  let refusals = LuaFeatureRefusals()

  /// The effects of this feature that may still run, bounded (see LuaEffectsInFlight).
  let effectsInFlight = LuaEffectsInFlight()
  /// What the reducer gets instead of the state: a proxy that journals its writes.
  let stateProxy: LuaReference
  /// The name of the field that names an action (`LuaAction.typeField`), as a registry slot the
  /// step checks each action with; kept here, as the step keeps only its slot.
  let actionTag: LuaReference

  /// Where the script was loaded from, for messages and for reloading.
  public var file: String { queue.access { $1.fileName } }

  /// When the state is written, for a feature that persists.
  var saver: StateSaver? { queue.access { $1.saver } }

  /// How the feature asked to be kept on disk (`Feature.persist = composable.persist{...}`).
  public struct Persistence: Equatable, Sendable {
    /// The file, relative to the host's data directory.
    public var path: DataPath
    /// The state field to save, or nil for the whole state.
    public var select: String?
    /// Seconds of quiet before a save.
    public var debounce: Double
  }

  /// The feature's persistence, if it asked for it.
  public var persistence: Persistence? { queue.access { $1.module.persistence } }

  /// Loads the feature at `url`. `state` replaces what `initial_state()` would give; `env` is
  /// what the reducer finds in its `env` argument, beside the host's `env` functions.
  ///
  /// ```swift
  /// let url = URL(fileURLWithPath: "Features/counter.lua")
  /// let feature = try LuaFeature(contentsOf: url, env: ["step": 2])
  /// ```
  public convenience init(
    contentsOf url: URL, state: LuaValue? = nil, env: LuaValue = [:],
    limits: LuaLimits = LuaLimits(), print: @escaping (String) -> Void = { Swift.print($0) }
  ) throws(LuaFeatureError) {
    let code: [UInt8]
    do { code = try LuaSourceFile.bytes(of: url) } catch {
      throw .load(file: url.path, message: "cannot read it: \(error.reason)")
    }
    try self.init(
      source: LuaString(bytes: code), file: url.lastPathComponent,
      directory: url.deletingLastPathComponent(), state: state, env: env, limits: limits,
      print: print)
  }

  /// Loads a feature from source. `file` names it in errors; `directory` is where `require`
  /// finds its sibling modules (none when nil).
  ///
  /// ```swift
  /// let feature = try LuaFeature(
  ///   source: """
  ///     return {
  ///       initial_state = function() return { count = 0 } end,
  ///       reduce = function(state, action) state.count = state.count + 1 end,
  ///     }
  ///     """,
  ///   file: "counter.lua")
  /// ```
  public convenience init(
    source: String, file: String, directory: URL? = nil, state: LuaValue? = nil,
    env: LuaValue = [:], limits: LuaLimits = LuaLimits(),
    print: @escaping (String) -> Void = { Swift.print($0) }
  ) throws(LuaFeatureError) {
    try self.init(
      source: LuaString(source), file: file, directory: directory, state: state, env: env,
      limits: limits, print: print)
  }

  /// Loads a feature from source as bytes, as a file holds them (a string literal may hold any
  /// byte, as `lua5.4` reads it).
  ///
  /// ```swift
  /// let bytes = try LuaSourceFile.bytes(of: url)
  /// let feature = try LuaFeature(
  ///   source: LuaString(bytes: bytes), file: url.lastPathComponent,
  ///   directory: url.deletingLastPathComponent())
  /// ```
  public convenience init(
    source: LuaString, file: String, directory: URL? = nil, state: LuaValue? = nil,
    env: LuaValue = [:], limits: LuaLimits = LuaLimits(),
    print: @escaping (String) -> Void = { Swift.print($0) }
  ) throws(LuaFeatureError) {
    try self.init(
      source: source, file: file, directory: directory, namesModulesByPath: false, state: state,
      env: env, limits: limits, print: print)
  }

  /// `namesModulesByPath`: the modules it requires are named in errors by their paths as
  /// `LuaTestPath` gives them (a Lua test's feature), not relative to `directory`.
  init(
    source: LuaString, file: String, directory: URL?, namesModulesByPath: Bool,
    state: LuaValue?, env: LuaValue, limits: LuaLimits = LuaLimits(),
    print: @escaping (String) -> Void = { Swift.print($0) }
  ) throws(LuaFeatureError) {
    let vm: LuaVM
    let loaded: Loaded
    let moduleFiles = directory.map {
      LuaModuleFiles(LuaModuleDirectories([$0]), namesChunksByPath: namesModulesByPath)
    }
    self.moduleFiles = moduleFiles
    do {
      vm = try LuaVM(limits: limits)
      vm.setStateReadOnlyMessage(Self.readOnlyMessage)
      let sandbox = try ComposableLuaLibrary.featureSandbox(
        in: vm, directory: directory, print: print, moduleFiles: moduleFiles)
      try Self.installEffectGlobals(vm: vm, sandbox: sandbox)
      let module = try Self.loadModule(source, file: file, vm: vm, sandbox: sandbox)
      let fingerprint = Self.codeFingerprint(of: source, modules: moduleFiles)
      try Self.checkHostsNames(in: env, file: file)
      environment = try vm.reference(to: hostEnvironment.table(with: env, in: vm))
      if let state {
        guard state.tableValue != nil else {
          throw LuaFeatureError.load(
            file: file, message: "the initial state must be a table, got \(state.typeName)")
        }
        // Held to the rules of what a reducer writes (a test's starting state held a key no
        // write could make: json.null).
        if let path = LuaVM.pathOfWhatIsNotData(in: state) {
          throw LuaFeatureError.load(
            file: file,
            message: "the initial state cannot hold what is at state\(path): a state holds "
              + "data (tables, strings, numbers and booleans; keys are strings, numbers and "
              + "booleans)")
        }
        stateReference = try vm.reference(to: state)
      } else if let makeState = module.initialState {
        stateReference = try Self.makeInitialState(vm, makeState, file: file)
        try Self.checkSelectedField(module.persistence, in: vm, state: stateReference, file: file)
      } else {
        stateReference = try vm.reference(to: [:])
        try Self.checkSelectedField(module.persistence, in: vm, state: stateReference, file: file)
      }
      stateProxy = try vm.transactionalProxy(of: stateReference)
      actionTag = try vm.reference(to: .string(LuaString(LuaAction.typeField)))
      let stepFunction = try Self.stepFunction(module.reduce, in: vm, sandbox: sandbox)
      let step = try LuaTransactionCall(
        function: stepFunction, state: stateProxy, context: environment, tag: actionTag, in: vm)
      var made = Loaded(
        sandbox: sandbox, module: module, step: step, stepFunction: stepFunction, fileName: file,
        saver: nil, codeFingerprint: fingerprint)
      made.sourceDigest = CodeDigest.of(source.bytes)
      loaded = made
    } catch let error as LuaFeatureError {
      throw error
    } catch let error as LuaError {
      throw .load(file: file, message: error.description)
    } catch {
      throw .load(file: file, message: "\(error)")
    }
    queue = LuaVMQueue(vm: vm, context: loaded)
    let saver = makeSaver(for: loaded.module.persistence)
    queue.access { $1.saver = saver }
  }

  /// `persist{ select }` names a field the initial state has: a misspelt one would save `nil`
  /// and restore nothing, silently. (A state the host gives, a test's say, is not checked.)
  static func checkSelectedField(
    _ persistence: Persistence?, in vm: LuaVM, state: LuaReference, file: String
  ) throws {
    guard let select = persistence?.select else { return }
    let check = try vm.load(
      "local s, k = ... local names = {} for name in next, s do if type(name) == 'string' then "
        + "names[#names + 1] = name end end table.sort(names) return s[k] ~= nil, names",
      chunkName: "=persist.select")
    let fields = try vm.call(check, arguments: [.reference(state), .value(LuaValue(select))])
    guard fields.first != true else { return }
    let names = fields.dropFirst().first?.tableValue?.sequence.compactMap(\.stringValue) ?? []
    var known = names.isEmpty ? "it has no fields" : "its fields: "
    known += names.prefix(20).joined(separator: ", ")
    if names.count > 20 { known += " and \(names.count - 20) more" }
    throw LuaFeatureError.load(
      file: file,
      message: "persist.select = \(LuaValue(select)): the initial state has no such field "
        + "(\(known)). To fix, name a field initial_state() returns")
  }

  /// `reduce(state, action, env)` as the step called for each action.
  /// The function it calls too, which the caller keeps (`Loaded.stepFunction`).
  func makeStep(
    _ reduce: LuaReference, in vm: LuaVM, sandbox: LuaSandbox
  ) throws(LuaError) -> (LuaTransactionCall, LuaReference) {
    let function = try Self.stepFunction(reduce, in: vm, sandbox: sandbox)
    let step = try LuaTransactionCall(
      function: function, state: stateProxy, context: environment, tag: actionTag, in: vm)
    return (step, function)
  }

  /// The function a step calls: `reduce`, or, for a feature that built a `for_each` or an
  /// `if_let` as it loaded, `reduce` followed by the checks those leave for the end of the
  /// action (`journal.finish_step`, composable.lua). Other features pay nothing for it.
  static func stepFunction(
    _ reduce: LuaReference, in vm: LuaVM, sandbox: LuaSandbox
  ) throws(LuaError) -> LuaReference {
    let finish = try vm.load(
      "local finish_step = require('composable.journal').finish_step "
        + "if finish_step then return finish_step(...) end return ...",
      chunkName: "=step", in: sandbox)
    guard case let .function(wrapped)? = try vm.call(finish, .function(reduce)).first else {
      return reduce
    }
    return wrapped
  }

  /// `sleep`, `http` and `file` for code inside `effect.run`.
  static func installEffectGlobals(vm: LuaVM, sandbox: LuaSandbox) throws(LuaError) {
    try vm.evaluate(
      "local effect = require('composable.effect') "
        + "sleep = effect.sleep http = effect.http_client file = effect.file_client",
      chunkName: "=effects", in: sandbox)
  }

  /// What `initial_state()` returns, kept in Lua (copied as data, never through Swift).
  static func makeInitialState(
    _ vm: LuaVM, _ function: LuaReference, file: String
  ) throws(LuaFeatureError) -> LuaReference {
    let made: LuaReference?
    do throws(LuaError) { made = try vm.callKeepingData(function) } catch {
      throw .load(file: file, message: "initial_state() failed: \(error)")
    }
    guard let made else {
      do throws(LuaError) { return try vm.reference(to: [:]) } catch {
        throw .load(file: file, message: error.description)
      }
    }
    guard made.typeName == "table" else {
      let found = (try? vm.value(of: made).typeName) ?? made.typeName
      throw .load(file: file, message: "the initial state must be a table, got \(found)")
    }
    // What `initial_state()` made is garbage now, as large as the state: collected before the
    // feature starts, and its memory given back (27 MB less resident for 100,000 todos under
    // `composable run`: the pool would otherwise keep it).
    vm.collectGarbageAndReleaseMemory()
    return made
  }

  /// Makes `env.uuid()`, `env.now()` and `env.random()` answer from `dependencies`.
  public func use(_ dependencies: DependencyValues) {
    hostEnvironment.use(dependencies)
  }
}
