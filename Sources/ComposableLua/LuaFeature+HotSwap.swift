import Composable
import Foundation
import IssueReporting
import LuaKit

/// Swapping in new code while the state stays.
extension LuaFeature {
  /// Replaces the reducer with the one in `source`, keeping the state. The new code loads in a
  /// fresh sandbox; if it is broken, the error is thrown and the old reducer stays. A
  /// `migrate(state)` in the new code runs once, as a transaction.
  public func swap(toSource source: String, file: String? = nil) throws(LuaFeatureError) {
    try swap(toSource: LuaString(source), file: file)
  }

  /// `swap` for source as bytes, as a file holds them.
  public func swap(toSource source: LuaString, file: String? = nil) throws(LuaFeatureError) {
    try queue.access { (vm, current) throws(LuaFeatureError) in
      let file = file ?? current.fileName
      let fresh: LuaSandbox
      do throws(LuaError) {
        fresh = try vm.makeSandbox(current.sandbox.configuration)
        try Self.installEffectGlobals(vm: vm, sandbox: fresh)
      } catch {
        throw .load(file: file, message: error.description)
      }
      moduleFiles?.startLoad()
      let module = try Self.loadModule(source, file: file, vm: vm, sandbox: fresh)
      let fingerprint = Self.codeFingerprint(of: source, modules: moduleFiles)
      var migrationChanges: Result<[LuaDifference], LuaFeatureError> = .success([])
      if let migrate = module.migrate {
        // Its changes read before the commit, from the journal, as an action's are.
        do throws(LuaError) { migrationChanges = try runMigration(migrate, in: vm) } catch {
          throw .load(file: file, message: "migrate(state) failed: \(error)")
        }
      }
      let step: LuaTransactionCall
      let stepFunction: LuaReference
      do throws(LuaError) {
        (step, stepFunction) = try makeStep(module.reduce, in: vm, sandbox: fresh)
      } catch {
        throw .load(file: file, message: error.description)
      }
      // What the old code's initial_state() gives, to say whether the new one gives another.
      let before = current.module.initialState.flatMap { try? vm.callKeepingData($0) }
        .flatMap { try? vm.value(of: $0) }
      var saver = current.saver
      if module.persistence?.path != saver?.path {
        saver = makeSaver(for: module.persistence)
        // A file there now was never loaded by this run: its saves go beside it, not over it
        // (a reload that came to persist wrote over a state it had never read).
        saver?.knowsFile(nil)
      }
      current = Loaded(
        sandbox: fresh, module: module, step: step, stepFunction: stepFunction, fileName: file,
        saver: saver,
        lastSaved: current.lastSaved, migrationChanges: migrationChanges,
        codeFingerprint: fingerprint)
      if let makeState = module.initialState {
        (current.reloadedInitialState, current.reloadedShapeGaps) = shapeAgainst(makeState, vm)
        if let before, let now = current.reloadedInitialState {
          current.initialStateChanged = before != now
        }
      }
    }
  }

  /// What `initial_state()` (the new code's) gives, and where the state is not shaped as it:
  /// a field it gives that the state lacks, or a table where it has a scalar or the other way
  /// (`RestoredShapeGap.gaps`, the top level only, read in Lua: the state is not read whole).
  /// Nil for both when `initial_state()` fails (a reload does not run it otherwise).
  private func shapeAgainst(
    _ makeState: LuaReference, _ vm: LuaVM
  ) -> (LuaValue?, (gaps: [RestoredShapeGap], count: Int)?) {
    guard let made = try? vm.callKeepingData(makeState), let initial = try? vm.value(of: made),
      let shallow = try? vm.call(
        vm.load(Self.shallowStateSource, chunkName: "=shape"),
        arguments: [.reference(stateReference), .reference(made)]
      ).first
    else { return (nil, nil) }
    let found = RestoredShapeGap.gaps(restored: shallow, initial: initial)
    return (initial, found.count == 0 ? nil : found)
  }

  /// The state's fields under the initial state's string keys, each table as an empty one:
  /// all `RestoredShapeGap.gaps` compares, without reading the state whole into Swift.
  static let shallowStateSource = """
    local state, initial = ...
    local shallow = {}
    for key in next, initial do
      if type(key) == "string" then
        local value = rawget(state, key)
        shallow[key] = type(value) == "table" and {} or value
      end
    end
    return shallow
    """
}
