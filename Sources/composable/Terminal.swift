import Foundation

/// What the host knows of where it writes.
enum Terminal {
  /// Colour on a terminal, unless `NO_COLOR` is set (no-color.org); never into a pipe or file.
  static func wantsColour(_ handle: FileHandle) -> Bool {
    let noColour = environmentVariable("NO_COLOR").map { !$0.isEmpty } ?? false
    return !noColour && isatty(handle.fileDescriptor) == 1
  }
}
