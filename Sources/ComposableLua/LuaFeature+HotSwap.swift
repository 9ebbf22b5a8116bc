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
        step = try makeStep(loaded.reduce)
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
