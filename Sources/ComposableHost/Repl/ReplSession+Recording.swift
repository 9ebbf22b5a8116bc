import Composable
import ComposableLua
import Foundation
import LuaKit

/// The session as a recording: what `:save` writes.
extension ReplSession {
  /// The session up to where it stands (actions undone are left out), with the feature named
  /// relative to `directory` when it is given (where the session file goes). After a reload
  /// whose `migrate` changed the state, or after which the code of now makes other states from
  /// the actions before it, it starts there, from the state it left: the actions before it ran
  /// on code the session no longer has, and would not replay on the code of now as they went.
  public func recording(relativeTo directory: URL? = nil) async -> SessionRecording {
    await checkReloads()
    let path = directory.map { Self.path(of: file, relativeTo: $0) } ?? file.path
    let start = timeline.lastBoundary
    let actions = timeline.actions.prefix(timeline.position).dropFirst(start?.position ?? 0)
    return SessionRecording(
      feature: path, code: CodeFingerprint.of(feature, file: file), env: env,
      initialState: start?.state ?? timeline.initialState, actions: Array(actions))
  }

  /// When the recording starts after a reload: its note, for `:save` and `:test`.
  var startNote: String? {
    guard let start = timeline.lastBoundary, start.position > 0 else { return nil }
    switch start.kind {
    case .migration:
      return "  note: it starts after action \(start.position), where a reload's migrate "
        + "changed the state; the actions before it ran on code the session no longer has"
    case .reload:
      return "  note: it starts after action \(start.position), where the code was reloaded: "
        + "the code of now makes other states from the actions before it. To keep them all, "
        + ":replay first (it runs them through the code of now)"
    }
  }

  /// `:save FILE`: the session, to `FILE` (relative to the working directory).
  func save(_ argument: String) async {
    guard !argument.isEmpty else {
      return printer.error(":save takes a file name (:save session.lua)")
    }
    let url = URL(pathGiven: argument)
    let folder = url.deletingLastPathComponent()
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder),
      isFolder.boolValue
    else {
      return printer.error(
        "the session was not saved: \(argument): its folder \(folder.path) does not exist. To "
          + "fix, make the folder first, or save where one is")
    }
    if let refusal = Self.saveRefusal(at: url, named: argument) {
      return printer.error("the session was not saved: " + refusal)
    }
    do {
      let recording = await recording(relativeTo: url.deletingLastPathComponent())
      try recording.write(to: url)
      let count = recording.actions.count
      // A replay takes a session's feature only from under the session file's folder (a
      // session from someone else must not name any file): one elsewhere is named to it.
      let beside = (try? DataPath(validating: recording.feature)) != nil
      let replay =
        beside
        ? "composable replay \(argument.shellWord) runs them again"
        : "composable replay --feature \(file.path.shellWord) \(argument.shellWord) runs them "
          + "again (its feature is "
          + "not under the session file's folder, so a replay takes it only when named)"
      let actions = count == 1 ? "action" : "actions"
      printer.line(
        "  saved \(count) \(actions) to \(argument.terminalSafe); \(replay.terminalSafe)")
      // A session is what led to the state shown: the actions past it (undone, or jumped back
      // over) are not in it, and would be lost unseen.
      let ahead = timeline.count - timeline.position
      if ahead > 0 {
        printer.line(
          "  (up to action \(timeline.position): the \(ahead) after it, undone or jumped back "
            + "over, are not in it; :redo or :goto \(timeline.count) first to save them)")
      }
      if let note = startNote { printer.line(note) }
    } catch let error as LuaError {
      printer.error("the session was not saved: \(error)")
    } catch {
      // The system's reason, in the words the rest of the REPL uses. (The folder is there,
      // checked above: a file that cannot be made in it is /proc's, say.)
      let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code
      let reason: String =
        switch code.map(Int32.init) {
        case ENOENT?: "a file cannot be made there"
        case EACCES?, EPERM?: "permission denied"
        case ENOSPC?: "no space left on the device"
        case EROFS?: "the file system is read-only"
        case let code?: String(cString: strerror(code))
        case nil: error.localizedDescription
        }
      printer.error("the session was not saved: \(argument.terminalSafe): \(reason)")
    }
  }

  /// Why `:save` does not write at `url` (typed as `name`), or nil when it may: nothing is
  /// there, or a session is (saved again: a file a replay reads whole). Anything else is
  /// someone's file (`:save todos.lua` once replaced the feature's code with the session,
  /// without a word), a folder, or a link or a FIFO, which a write would follow or replace.
  static func saveRefusal(at url: URL, named name: String) -> String? {
    var status = stat()
    guard lstat(url.path, &status) == 0 else { return nil }
    let fix = "To fix, choose another name, or remove it first"
    switch status.st_mode & S_IFMT {
    case S_IFDIR:
      return "\(name) is a folder. To fix, name a file in it (:save \(name)/session.lua)"
    case S_IFLNK:
      return "\(name) is a symbolic link, and :save does not write through one. \(fix)"
    case S_IFREG:
      // Read whole, as a replay reads it: a file that only starts like one (a feature whose
      // first comment is a session's header) is not one.
      guard (try? SessionRecording.read(from: url)) != nil else {
        return "\(name) exists and is not a session, and :save writes over sessions only. "
          + fix
      }
      return nil
    default:
      return "\(name) is not a regular file. \(fix)"
    }
  }

  /// `file`'s path from `directory`: `todos.lua`, `../features/todos.lua`.
  static func path(of file: URL, relativeTo directory: URL) -> String {
    let target = file.standardizedFileURL.pathComponents
    let base = directory.standardizedFileURL.pathComponents
    var common = 0
    while common < min(target.count, base.count), target[common] == base[common] { common += 1 }
    let up = Array(repeating: "..", count: base.count - common)
    return (up + target[common...]).joined(separator: "/")
  }
}
