import ComposableLua

/// The note a run prints when the state it restored, saved by other code, is not shaped as
/// `initial_state()` gives it: an action of the code of now reading a field the old code never
/// saved fails far from the cause (a new field, a restart, `attempt to index a nil value`).
enum RestoredShapeNote {
  /// `file` is the saved file's path as the run names it; `migrated` whether `migrate(state)`
  /// ran on the state (and left the gaps).
  static func text(gaps: [RestoredShapeGap], count: Int, file: String, migrated: Bool) -> String {
    let ran = migrated ? "; migrate(state) ran on it and left \(count == 1 ? "it" : "them") so" : ""
    return "the state restored from \(file) was saved by other code, and is not shaped as "
      + "initial_state() gives it: \(RestoredShapeGap.places(gaps, count: count))\(ran). An "
      + "action reading \(count == 1 ? "it" : "them") may fail. To fix, have migrate(state) set "
      + "\(count == 1 ? "it" : "them") (\(RestoredShapeGap.fix(for: gaps))), or move the file "
      + "away to start from initial_state()"
  }
}
