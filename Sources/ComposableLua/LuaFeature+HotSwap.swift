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
    }
  }
}
