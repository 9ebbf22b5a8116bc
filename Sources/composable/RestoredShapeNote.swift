import ComposableLua

/// The note a run prints when the state it restored, saved by other code, is not shaped as
/// `initial_state()` gives it: an action of the code of now reading a field the old code never
/// saved fails far from the cause (a new field, a restart, `attempt to index a nil value`).
enum RestoredShapeNote {
  /// `file` is the saved file's path as the run names it; `migrated` whether `migrate(state)`
  /// ran on the state (and left the gaps).
  static func text(gaps: [RestoredShapeGap], count: Int, file: String, migrated: Bool) -> String {
    let places = gaps.enumerated().map { index, gap in
      let said = gap.found == "nil" ? "is nil" : "is a \(gap.found)"
      return "\(gap.path) \(said) where \(index == 0 ? "initial_state()" : "it") gives a "
        + gap.expected
    }
    let more = count > gaps.count ? " (and \(count - gaps.count) more)" : ""
    let ran = migrated ? "; migrate(state) ran on it and left \(count == 1 ? "it" : "them") so" : ""
    // `state.filter`, or `state["a key"]` for a name that is no Lua word.
    let path = gaps.first?.path ?? "field"
    let first = "state" + (path.hasPrefix("[") ? "" : ".") + path
    let fix =
      gaps.first?.found == "nil"
      ? "`if \(first) == nil then \(first) = ... end`" : "`\(first) = ...`"
    return "the state restored from \(file) was saved by other code, and is not shaped as "
      + "initial_state() gives it: \(places.joined(separator: ", "))\(more)\(ran). An action "
      + "reading \(count == 1 ? "it" : "them") may fail. To fix, have migrate(state) set "
      + "\(count == 1 ? "it" : "them") (\(fix)), or move the file away to start from "
      + "initial_state()"
  }
}
