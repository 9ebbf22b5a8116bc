import Foundation

/// A variable of the process's environment, read with `getenv`: `ProcessInfo`'s `environment`
/// copies the whole environment into a dictionary first, half a million instructions at
/// launch for one lookup.
func environmentVariable(_ name: String) -> String? {
  getenv(name).map { String(cString: $0) }
}

/// An XDG base directory: `$VARIABLE` when it is an absolute path, else `$HOME/fallback` (the
/// XDG spec's rule: unset, empty or relative is ignored, so that the data never lands wherever
/// the command happens to run). `$HOME` too counts only when absolute.
func xdgDirectory(_ variable: String, fallback: String) -> URL {
  func absolute(_ name: String) -> URL? {
    environmentVariable(name).flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
  }
  if let base = absolute(variable) { return base }
  let home = absolute("HOME") ?? FileManager.default.homeDirectoryForCurrentUser
  return home.appendingPathComponent(fallback)
}
