import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The file descriptors this process has open above standard error, for a test that starts a
/// process with `posix_spawn` to close in it: what is not close-on-exec goes to the child, and
/// the tests run side by side. Another test's pipe held open there keeps its reader there: a
/// run of that test waiting for the SIGPIPE of a reader gone waited 600 s.
///
/// ```swift
/// for descriptor in openDescriptors(keepingSockets: false) {
///   posix_spawn_file_actions_addclose(&actions, descriptor)
/// }
/// ```
///
/// With `keepingSockets`, sockets are left out (for a test of what a child inherits of them).
/// One opened after this call and before the spawn still goes: a window of microseconds, where
/// it was the child's whole life.
public func openDescriptors(keepingSockets: Bool) -> [Int32] {
  let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
  return names.compactMap(Int32.init).filter { descriptor in
    var status = stat()
    guard descriptor > 2, fstat(descriptor, &status) == 0 else { return false }
    return !keepingSockets || status.st_mode & S_IFMT != S_IFSOCK
  }
}
