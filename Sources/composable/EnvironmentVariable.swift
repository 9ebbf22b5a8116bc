import Foundation

/// A variable of the process's environment, read with `getenv`: `ProcessInfo`'s `environment`
/// copies the whole environment into a dictionary first, half a million instructions at
/// launch for one lookup.
func environmentVariable(_ name: String) -> String? {
  getenv(name).map { String(cString: $0) }
}
