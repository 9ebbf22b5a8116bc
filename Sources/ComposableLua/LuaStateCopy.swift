import LuaKit

/// A copy of a feature's state kept in its VM (`LuaFeature.stateCopy()`): read into Swift
/// when asked for, freed when the last handle on it goes.
public final class LuaStateCopy: Sendable {
  let feature: LuaFeature
  let reference: LuaReference

  init(feature: LuaFeature, reference: LuaReference) {
    self.feature = feature
    self.reference = reference
  }

  /// The state as it was when copied, as `LuaFeature.state()` read it then.
  public func value() throws(LuaFeatureError) -> LuaValue {
    try feature.queue.access { (vm, loaded) throws(LuaFeatureError) -> LuaValue in
      do throws(LuaError) { return try vm.value(of: reference, rootName: "state") } catch {
        throw .conversion(error)
      }
    }
  }
}
