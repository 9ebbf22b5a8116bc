import Foundation
import TestSupport
import Testing

/// The default data directory is named after the feature's file alone, so two projects'
/// `notes.lua` shared one: the second restored the first one's notes and saved over them (a new
/// user's finding). It is kept for one feature at a time, named in its marker.
@Suite struct DataDirectoryOwnerTests {
  /// Two projects, each with its `notes.lua`, and the XDG data home they both use.
  struct Projects {
    let directory: URL
    let first: URL
    let second: URL
    let data: URL

    init(_ name: String) throws {
      directory = try makeTemporaryDirectory(name)
      first = directory.appendingPathComponent("one/notes.lua")
      second = directory.appendingPathComponent("two/notes.lua")
      for feature in [first, second] {
        try FileManager.default.createDirectory(
          at: feature.deletingLastPathComponent(), withIntermediateDirectories: true)
        try CommandLineTests.notes.write(to: feature, atomically: true, encoding: .utf8)
      }
      data = directory.appendingPathComponent("xdg")
    }

    /// The notes' default data directory.
    var folder: URL { data.appendingPathComponent("composable/notes") }
    var saved: URL { folder.appendingPathComponent("notes.saved.lua") }
    var marker: URL { folder.appendingPathComponent(".composable-feature") }

    /// `composable run FEATURE` adding `note` (none: no action), with the shared XDG data home.
    func run(_ feature: URL, adding note: String? = nil, _ extra: [String] = [])
      throws -> Command.Outcome
    {
      let input = note.map { #"{ type = "add", text = "\#($0)" }"# + "\n" } ?? ""
      return try Command.run(
        ["run", feature.path, "--wait", "0"] + extra, input: input,
        environment: ["XDG_DATA_HOME": data.path])
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
  }

  @Test func aSecondFeatureOfTheSameNameStopsAndLeavesTheFirstOnesFiles() throws {
    let projects = try Projects("owner-two")
    defer { projects.remove() }
    let first = try projects.run(projects.first, adding: "milk")
    #expect(first.status == 0, "\(first.errors)")
    let before = try Data(contentsOf: projects.saved)
    #expect(try String(contentsOf: projects.marker, encoding: .utf8) == projects.first.path + "\n")

    let second = try projects.run(projects.second, adding: "tea")
    #expect(second.status == 1)
    #expect(
      second.errors
        == "error: the data directory \(projects.folder.path) is kept for another feature, "
        + "\(projects.first.path): its state and files are not this feature's to restore or write "
        + "over, so the run stops before its first action. To fix, give this feature a folder of "
        + "its own with --data DIR (or, if the files there are this feature's now, remove "
        + "\(projects.marker.path))\n")
    #expect(!second.output.contains("received action"), "\(second.output)")
    #expect(try Data(contentsOf: projects.saved) == before)

    // The first one goes on as before; the second runs with a folder of its own.
    let again = try projects.run(projects.first)
    #expect(again.status == 0, "\(again.errors)")
    #expect(again.output.contains(#"State: { notes = { "milk" } }"#), "\(again.output)")
    let own = projects.directory.appendingPathComponent("own").path
    let apart = try projects.run(projects.second, adding: "tea", ["--data", own])
    #expect(apart.status == 0, "\(apart.errors)")
    #expect(try Data(contentsOf: projects.saved) == before)
  }

  /// A feature that keeps no state runs, and makes no folder; what it writes there (a file
  /// effect) claims the folder first, and fails when it is another feature's (a feature that
  /// came to persist in a reload wrote over another one's state unclaimed).
  @Test func aFeatureThatKeepsNoStateClaimsTheFolderWhenItWrites() throws {
    let projects = try Projects("owner-stateless")
    defer { projects.remove() }
    let stateless = projects.directory.appendingPathComponent("three/notes.lua")
    try FileManager.default.createDirectory(
      at: stateless.deletingLastPathComponent(), withIntermediateDirectories: true)
    try """
      local composable = require("composable")
      return {
        initial_state = function() return { notes = {} } end,
        reduce = function(state, action)
          if action.type == "add" then table.insert(state.notes, action.text) end
          if action.type == "write" then
            return composable.effect.file.write{ path = "notes.saved.lua", contents = "mine" }
          end
        end,
      }
      """.write(to: stateless, atomically: true, encoding: .utf8)

    let alone = try projects.run(stateless, adding: "tea")
    #expect(alone.status == 0, "\(alone.errors)")
    #expect(!FileManager.default.fileExists(atPath: projects.folder.path))

    #expect(try projects.run(projects.first, adding: "milk").status == 0)
    let before = try Data(contentsOf: projects.saved)
    let reading = try projects.run(stateless, adding: "tea")
    #expect(reading.status == 0, "\(reading.errors)")
    #expect(reading.errors == "")
    let writing = try Command.run(
      ["run", stateless.path, "--wait", "10"], input: "write\n",
      environment: ["XDG_DATA_HOME": projects.data.path])
    #expect(
      writing.errors.contains(
        "is kept for another feature, \(projects.first.path): its state and files are not this "
          + "feature's to restore or write over"), "\(writing.errors)")
    #expect(try Data(contentsOf: projects.saved) == before)
  }

  /// The feature the folder was kept for is gone (moved, renamed): taken over, with a note, and
  /// its state restored (it is this feature's, moved).
  @Test func aFolderKeptForAFeatureThatIsGoneIsTakenOver() throws {
    let projects = try Projects("owner-gone")
    defer { projects.remove() }
    #expect(try projects.run(projects.first, adding: "milk").status == 0)
    try FileManager.default.removeItem(at: projects.first)

    let second = try projects.run(projects.second)
    #expect(second.status == 0, "\(second.errors)")
    #expect(
      second.errors
        == "note: the data directory \(projects.folder.path) was kept for \(projects.first.path), "
        + "which is not there any more: it is kept for this feature now, and what that feature "
        + "left there is this one's\n")
    #expect(second.output.contains(#"State: { notes = { "milk" } }"#), "\(second.output)")
    #expect(try String(contentsOf: projects.marker, encoding: .utf8) == projects.second.path + "\n")
    // Said once: the next run is quiet.
    #expect(try projects.run(projects.second).errors == "")
  }

  /// A folder made before markers were kept holds no marker: taken, quietly, its state kept.
  @Test func aFolderFromBeforeMarkersIsTaken() throws {
    let projects = try Projects("owner-before")
    defer { projects.remove() }
    #expect(try projects.run(projects.first, adding: "milk").status == 0)
    try FileManager.default.removeItem(at: projects.marker)

    let second = try projects.run(projects.second)
    #expect(second.status == 0, "\(second.errors)")
    #expect(second.errors == "")
    #expect(second.output.contains(#"State: { notes = { "milk" } }"#), "\(second.output)")
    #expect(try String(contentsOf: projects.marker, encoding: .utf8) == projects.second.path + "\n")
  }

  /// One feature run by two names (a symlink, a relative path) is one feature.
  @Test func oneFeatureByTwoNamesIsOne() throws {
    let projects = try Projects("owner-names")
    defer { projects.remove() }
    #expect(try projects.run(projects.first, adding: "milk").status == 0)
    let link = projects.directory.appendingPathComponent("link.lua")
    try FileManager.default.createSymbolicLink(
      atPath: link.path, withDestinationPath: projects.first.path)
    let viaLink = try Command.run(
      ["run", "link.lua", "--wait", "0"], in: projects.directory,
      environment: ["XDG_DATA_HOME": projects.data.path])
    // A symlink named otherwise is another name: its default folder is `link`, not `notes`.
    #expect(viaLink.status == 0, "\(viaLink.errors)")
    let relative = try Command.run(
      ["run", "one/../one/notes.lua", "--wait", "0"], in: projects.directory,
      environment: ["XDG_DATA_HOME": projects.data.path])
    #expect(relative.status == 0, "\(relative.errors)")
    #expect(relative.errors == "")
    #expect(relative.output.contains(#"State: { notes = { "milk" } }"#), "\(relative.output)")
    let renamed = projects.directory.appendingPathComponent("notes.lua")
    try FileManager.default.createSymbolicLink(
      atPath: renamed.path, withDestinationPath: projects.first.path)
    let viaSameName = try projects.run(renamed)
    #expect(viaSameName.status == 0, "\(viaSameName.errors)")
    #expect(viaSameName.errors == "")
    #expect(try String(contentsOf: projects.marker, encoding: .utf8) == projects.first.path + "\n")
  }

  /// A marker that names no path (written over by the feature's own files, say) is taken over;
  /// one that cannot be read stops the run, naming it.
  @Test func aMarkerThatIsNoPathOrCannotBeRead() throws {
    let projects = try Projects("owner-marker")
    defer { projects.remove() }
    #expect(try projects.run(projects.first, adding: "milk").status == 0)
    try Data("hello\r\nthere".utf8).write(to: projects.marker)
    let taken = try projects.run(projects.second)
    #expect(taken.status == 0, "\(taken.errors)")
    #expect(
      taken.errors
        == "note: the data directory \(projects.folder.path) held a marker that names no feature: "
        + "it is kept for this feature now\n")
    #expect(try String(contentsOf: projects.marker, encoding: .utf8) == projects.second.path + "\n")

    try FileManager.default.removeItem(at: projects.marker)
    try FileManager.default.createDirectory(at: projects.marker, withIntermediateDirectories: true)
    let unreadable = try projects.run(projects.second, adding: "tea")
    #expect(unreadable.status == 1)
    #expect(
      unreadable.errors
        == "error: the marker \(projects.marker.path), which says which feature the data "
        + "directory \(projects.folder.path) is kept for, could not be read (it is a directory, "
        + "not a file), so the run stops before its first action. To fix, make it readable, "
        + "remove it if the files there are this feature's, or give this feature a folder of its "
        + "own with --data DIR\n")
    try FileManager.default.removeItem(at: projects.marker)

    // A FIFO is not waited on (the run hung at start), a symlink not followed.
    #expect(mkfifo(projects.marker.path, 0o644) == 0)
    let fifo = try projects.run(projects.second, adding: "tea")
    #expect(fifo.status == 1)
    #expect(fifo.errors.contains("could not be read (it is a FIFO (named pipe), not a file)"))
    try FileManager.default.removeItem(at: projects.marker)
    try FileManager.default.createSymbolicLink(
      atPath: projects.marker.path, withDestinationPath: projects.second.path)
    let link = try projects.run(projects.second, adding: "tea")
    #expect(link.status == 1)
    #expect(link.errors.contains("could not be read (it is a symlink)"), "\(link.errors)")
    #expect(!link.output.contains("received action"))
  }

  /// `--data` names a folder by hand: no marker is looked at or made there.
  @Test func aFolderNamedWithDataIsTheUsersChoice() throws {
    let projects = try Projects("owner-data")
    defer { projects.remove() }
    let shared = projects.directory.appendingPathComponent("shared").path
    #expect(try projects.run(projects.first, adding: "milk", ["--data", shared]).status == 0)
    let second = try projects.run(projects.second, ["--data", shared])
    #expect(second.status == 0, "\(second.errors)")
    #expect(second.output.contains(#"State: { notes = { "milk" } }"#), "\(second.output)")
    #expect(
      !FileManager.default.fileExists(
        atPath: URL(fileURLWithPath: shared).appendingPathComponent(".composable-feature").path))
  }

  /// The feature's folder moved behind a symlink: the marker's path still leads to it (the
  /// same file), so it is this feature, not another one. A marker naming a folder names no
  /// feature there now: taken over.
  @Test func theSameFileByAnotherPathIsTheSameFeature() throws {
    let projects = try Projects("owner-moved")
    defer { projects.remove() }
    #expect(try projects.run(projects.first, adding: "milk").status == 0)
    let one = projects.first.deletingLastPathComponent()
    let real = projects.directory.appendingPathComponent("one-real")
    try FileManager.default.moveItem(at: one, to: real)
    try FileManager.default.createSymbolicLink(atPath: one.path, withDestinationPath: real.path)
    // The marker names .../one/notes.lua; the feature's full path is now .../one-real/notes.lua.
    let again = try projects.run(projects.first)
    #expect(again.status == 0, "\(again.errors)")
    #expect(again.errors == "")
    #expect(again.output.contains(#"State: { notes = { "milk" } }"#), "\(again.output)")

    try Data((projects.directory.path + "\n").utf8).write(to: projects.marker)
    let folderNamed = try projects.run(projects.second)
    #expect(folderNamed.status == 0, "\(folderNamed.errors)")
    #expect(folderNamed.errors.hasPrefix("note: "), "\(folderNamed.errors)")
  }

  /// Runs of different features of one name, started at once on a folder no feature keeps (a
  /// new one, or one kept for a feature that is gone): exactly one takes it, the others stop.
  @Test(arguments: [false, true])
  func runsAtOnceTakeAFolderOnce(stale: Bool) throws {
    let projects = try Projects("owner-race")
    defer { projects.remove() }
    if stale {
      try FileManager.default.createDirectory(at: projects.folder, withIntermediateDirectories: true)
      try Data("/nowhere/notes.lua\n".utf8).write(to: projects.marker)
    }
    var features: [URL] = []
    for n in 0..<8 {
      let feature = projects.directory.appendingPathComponent("race\(n)/notes.lua")
      try FileManager.default.createDirectory(
        at: feature.deletingLastPathComponent(), withIntermediateDirectories: true)
      try CommandLineTests.notes.write(to: feature, atomically: true, encoding: .utf8)
      features.append(feature)
    }
    let statuses = Statuses()
    let all = features
    DispatchQueue.concurrentPerform(iterations: features.count) { n in
      let outcome = try? projects.run(all[n], adding: "run \(n)")
      statuses.append(outcome?.status ?? -1)
    }
    #expect(statuses.all.filter { $0 == 0 }.count == 1, "\(statuses.all)")
    #expect(statuses.all.filter { $0 == 1 }.count == features.count - 1, "\(statuses.all)")
    let owner = try String(contentsOf: projects.marker, encoding: .utf8)
    #expect(features.contains { $0.path + "\n" == owner }, "\(owner)")
  }

  /// A marker edited by hand (a byte-order mark, a CR, a trailing space) still names its
  /// feature: the other one stops (it was taken over, the first one's state restored).
  @Test func aMarkerEditedByHandStillNamesItsFeature() throws {
    let projects = try Projects("owner-hand")
    defer { projects.remove() }
    #expect(try projects.run(projects.first, adding: "milk").status == 0)
    for edited in ["\u{FEFF}\(projects.first.path)\r\n", "\(projects.first.path) \n\n"] {
      try Data(edited.utf8).write(to: projects.marker)
      let second = try projects.run(projects.second, adding: "tea")
      #expect(second.status == 1, "\(edited): \(second.errors)")
      #expect(second.errors.contains("is kept for another feature, \(projects.first.path):"))
    }
  }

  /// The marker is composable's: a feature's file effects cannot write, append to or remove it
  /// (a feature that did could give its folder to another feature or take another's), by any
  /// spelling of its path; nor write a file under the name of a write's temporary file (removed
  /// once its process is gone). Its other files are written as before.
  @Test func theMarkerAndTemporaryNamesAreNotAFeaturesToWrite() throws {
    let projects = try Projects("owner-reserved")
    defer { projects.remove() }
    try """
      local composable = require("composable")
      return {
        initial_state = function() return { answers = {} } end,
        reduce = function(state, action)
          if action.type == "done" then
            table.insert(state.answers, action.ok and "ok" or action.error)
          elseif action.type ~= "list" then
            local remove = action.type == "remove"
            return composable.effect.file[action.type]{
              path = action.path, contents = not remove and "theirs" or nil, response = "done" }
          end
        end,
      }
      """.write(to: projects.first, atomically: true, encoding: .utf8)
    let temporary = ".notes.txt.\(getpid()).\(UUID().uuidString).tmp"
    let old = ".notes.txt.\(UUID().uuidString).tmp"
    let actions = [
      ("write", "notes.txt"), ("write", ".composable-feature"), ("append", "./.composable-feature"),
      ("remove", ".//.composable-feature"), ("write", temporary), ("append", "sub/" + old),
      ("write", "sub/.composable-feature"),
    ]
    let input = actions.map { #"{ type = "\#($0.0)", path = "\#($0.1)" }"# }.joined(separator: "\n")
    let run = try Command.run(
      ["run", projects.first.path, "--wait", "10"], input: input + "\n",
      environment: ["XDG_DATA_HOME": projects.data.path])
    #expect(run.status == 0, "\(run.errors)")
    let marker = "this file records which feature the data directory is kept for; it is "
      + "composable's, not the feature's. To fix, give the feature's file another name"
    let form = "a name of this form (.NAME.PID.UUID.tmp) is kept for a write's temporary file, "
      + "removed once the process that wrote it is gone; give the file another name"
    for expected in [
      "\"ok\"", "\".composable-feature: \(marker)\"", "\"\(temporary): \(form)\"",
      "\"sub/\(old): \(form)\"",
    ] {
      #expect(run.output.contains(expected), "\(expected)\n\(run.output)")
    }
    let answers = run.output.split(separator: "\n").filter { $0.contains("+ answers[") }
    #expect(answers.filter { $0.contains(marker) }.count == 3, "\(run.output)")
    #expect(answers.count == actions.count, "\(run.output)")
    #expect(try String(contentsOf: projects.marker, encoding: .utf8) == projects.first.path + "\n")
    let names = try FileManager.default.contentsOfDirectory(atPath: projects.folder.path)
    #expect(Set(names) == [".composable-feature", "notes.txt", "sub"], "\(names)")
    // Below the root, the name is the feature's own.
    let sub = projects.folder.appendingPathComponent("sub")
    #expect(try FileManager.default.contentsOfDirectory(atPath: sub.path) == [".composable-feature"])

    // Nor by a way a symlink in the folder opens (an attacker's finding): the marker is known
    // by where it is, not by the path that led there.
    let manager = FileManager.default
    try manager.createSymbolicLink(
      atPath: projects.folder.appendingPathComponent("link.txt").path,
      withDestinationPath: ".composable-feature")
    try manager.createSymbolicLink(
      atPath: projects.folder.appendingPathComponent("here").path, withDestinationPath: ".")
    try manager.createSymbolicLink(
      atPath: projects.folder.appendingPathComponent("abs").path,
      withDestinationPath: projects.folder.path)
    try manager.createSymbolicLink(
      atPath: sub.appendingPathComponent("up").path, withDestinationPath: "..")
    let routes = [
      ("write", "link.txt"), ("remove", "here/.composable-feature"),
      ("append", "abs/.composable-feature"), ("write", "sub/up/.composable-feature"),
      ("write", "here/here/abs/.composable-feature"),
    ]
    let linked = try Command.run(
      ["run", projects.first.path, "--wait", "10"],
      input: routes.map { #"{ type = "\#($0.0)", path = "\#($0.1)" }"# }.joined(separator: "\n")
        + "\n",
      environment: ["XDG_DATA_HOME": projects.data.path])
    #expect(linked.status == 0, "\(linked.errors)")
    let refused = linked.output.split(separator: "\n").filter {
      $0.contains("+ answers[") && $0.contains(marker)
    }
    #expect(refused.count == routes.count, "\(linked.output)")
    #expect(try String(contentsOf: projects.marker, encoding: .utf8) == projects.first.path + "\n")

    // Every name the host keeps for itself (`.composable-`), by its name or a link to it.
    try manager.createSymbolicLink(
      atPath: projects.folder.appendingPathComponent("cache.txt").path,
      withDestinationPath: ".composable-cache")
    let hosts = [
      ("write", ".composable-cache"), ("write", "cache.txt"), ("append", "here/.composable-x"),
      ("write", "sub/up/.composable-y"),
    ]
    let kept = try Command.run(
      ["run", projects.first.path, "--wait", "10"],
      input: hosts.map { #"{ type = "\#($0.0)", path = "\#($0.1)" }"# }.joined(separator: "\n")
        + "\n",
      environment: ["XDG_DATA_HOME": projects.data.path])
    #expect(kept.status == 0, "\(kept.errors)")
    let hostNames = "names beginning .composable- at the top of the data directory are kept for "
      + "composable's own files. To fix, give the file another name"
    let refusedNames = kept.output.split(separator: "\n").filter {
      $0.contains("+ answers[") && $0.contains(hostNames)
    }
    #expect(refusedNames.count == hosts.count, "\(kept.output)")
    let left = try FileManager.default.contentsOfDirectory(atPath: projects.folder.path)
    #expect(!left.contains { $0.hasPrefix(".composable-") && $0 != ".composable-feature" })
  }

  /// `persist.path` naming the marker (the run read its own marker as a saved state, and told
  /// the user to move it away) or a temporary file's form (every save refused): refused at
  /// start, before any action, with `--data` too.
  @Test func aSavedFileCannotBeTheMarkerOrATemporary() throws {
    let projects = try Projects("owner-persist-path")
    defer { projects.remove() }
    let cases = [
      (
        "./.composable-feature",
        "error: notes.lua did not load: persist.path: .composable-feature: names beginning "
          + ".composable- at the top of the data directory are kept for composable's own files. "
          + "To fix, give the file another name\n"
      ),
      (
        ".s.1.00000000-0000-0000-0000-000000000000.tmp",
        "error: notes.lua did not load: persist.path: "
          + ".s.1.00000000-0000-0000-0000-000000000000.tmp: a name of this form "
          + "(.NAME.PID.UUID.tmp) is kept for a write's temporary file, removed once the process "
          + "that wrote it is gone; give the file another name\n"
      ),
    ]
    for (path, said) in cases {
      try CommandLineTests.notes.replacingOccurrences(of: "notes.saved.lua", with: path)
        .write(to: projects.first, atomically: true, encoding: .utf8)
      for extra in [[], ["--data", projects.directory.appendingPathComponent("own").path]] {
        let run = try projects.run(projects.first, adding: "milk", extra)
        #expect(run.status == 1)
        #expect(run.errors == said, "\(extra)")
        #expect(!run.output.contains("received action"))
      }
    }
    #expect(!FileManager.default.fileExists(atPath: projects.folder.path))
  }

  /// A write refused for its name makes no folder, and claims none.
  @Test func aRefusedNameMakesNoFolder() throws {
    let projects = try Projects("owner-refused")
    defer { projects.remove() }
    try """
      local composable = require("composable")
      return {
        initial_state = function() return {} end,
        reduce = function(state, action)
          return composable.effect.file.write{
            path = "deep/.a.1.00000000-0000-0000-0000-000000000000.tmp", contents = "x" }
        end,
      }
      """.write(to: projects.first, atomically: true, encoding: .utf8)
    let run = try Command.run(
      ["run", projects.first.path, "--wait", "10"], input: "write\n",
      environment: ["XDG_DATA_HOME": projects.data.path])
    #expect(run.errors.contains("is kept for a write's temporary file"), "\(run.errors)")
    #expect(!FileManager.default.fileExists(atPath: projects.folder.path))
  }

  /// A marker that cannot be written (a folder even root cannot write to: immutable) fails the
  /// write that claimed the folder, saying what the folder needs or how to have another.
  @Test func aMarkerThatCannotBeWrittenSaysWhatToDo() throws {
    let projects = try Projects("owner-immutable")
    try FileManager.default.createDirectory(at: projects.folder, withIntermediateDirectories: true)
    func chattr(_ flag: String, _ path: String? = nil) throws -> Int32 {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
      process.arguments = [flag, path ?? projects.folder.path]
      process.standardError = FileHandle.nullDevice
      try process.run()
      process.waitUntilExit()
      return process.terminationStatus
    }
    defer {
      _ = try? chattr("-i")
      _ = try? chattr("-i", projects.marker.path)
      projects.remove()
    }
    try """
      local composable = require("composable")
      return {
        initial_state = function() return {} end,
        reduce = function(state, action)
          return composable.effect.file.write{ path = "mine.txt", contents = "x" }
        end,
      }
      """.write(to: projects.first, atomically: true, encoding: .utf8)
    try #require(try chattr("+i") == 0, "chattr +i: this test needs root on ext4, as CI has")
    let run = try Command.run(
      ["run", projects.first.path, "--wait", "10"], input: "write\n",
      environment: ["XDG_DATA_HOME": projects.data.path])
    #expect(
      run.errors.contains(
        "the marker \(projects.marker.path), which says which feature the data directory is kept "
          + "for, could not be written (Operation not permitted). To fix, make "
          + "\(projects.folder.path) writable, or give this feature a folder of its own with "
          + "--data DIR"), "\(run.errors)")

    // A marker of a feature that is gone, which cannot be moved away to take the folder over.
    #expect(try chattr("-i") == 0)
    try "/gone/notes.lua\n".write(to: projects.marker, atomically: true, encoding: .utf8)
    #expect(try chattr("+i", projects.marker.path) == 0)
    let stuck = try Command.run(
      ["run", projects.first.path, "--wait", "10"], input: "write\n",
      environment: ["XDG_DATA_HOME": projects.data.path])
    #expect(
      stuck.errors.contains(
        "could not be replaced (Operation not permitted). To fix, make \(projects.folder.path) "
          + "and the marker in it writable (or remove the marker if the files there are this "
          + "feature's), or give this feature a folder of its own with --data DIR"),
      "\(stuck.errors)")
  }

  /// The folder removed while a run goes on: the run's next save makes it again, marked again
  /// (it was claimed once a run: unmarked, another feature of the name would have taken it).
  /// The saved file went with it, so the save goes beside it (a file changed since it was
  /// loaded), and the run ends saying so.
  @Test func aFolderRemovedMidRunIsClaimedAgain() throws {
    let projects = try Projects("owner-removed")
    defer { projects.remove() }
    try CommandLineTests.notes.replacingOccurrences(of: "debounce = 1", with: "debounce = 0")
      .write(to: projects.first, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = try builtProduct("composable")
    process.arguments = ["run", projects.first.path, "--wait", "0"]
    process.environment = ProcessInfo.processInfo.environment.merging(
      ["XDG_DATA_HOME": projects.data.path], uniquingKeysWith: { $1 })
    let input = Pipe()
    process.standardInput = input
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    func add(_ note: String) -> Bool {
      input.fileHandleForWriting.write(Data(#"{ type = "add", text = "\#(note)" }"#.utf8 + [10]))
      for _ in 0..<6000 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: projects.folder.path))
        for name in names ?? [] where name.hasPrefix("notes.saved.lua") {
          let file = projects.folder.appendingPathComponent(name)
          if (try? String(contentsOf: file, encoding: .utf8))?.contains(note) == true { return true }
        }
        Thread.sleep(forTimeInterval: 0.01)
      }
      return false
    }
    #expect(add("milk"))
    try FileManager.default.removeItem(at: projects.folder)
    #expect(add("tea"))
    #expect(try String(contentsOf: projects.marker, encoding: .utf8) == projects.first.path + "\n")
    let other = try projects.run(projects.second, adding: "coffee")
    #expect(other.status == 1)
    #expect(other.errors.contains("is kept for another feature, \(projects.first.path)"))
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
    #expect(process.terminationStatus == 1)
  }

  /// A run whose feature came to persist in a reload never loaded the file there (a feature
  /// gone, whose folder it took over): its saves go beside it, not over it.
  @Test func aReloadThatComesToPersistSavesBesideAFileItNeverLoaded() throws {
    let directory = try makeTemporaryDirectory("owner-reload")
    defer { try? FileManager.default.removeItem(at: directory) }
    let feature = directory.appendingPathComponent("notes.lua")
    let persisting = CommandLineTests.notes.replacingOccurrences(of: "debounce = 1", with: "debounce = 0")
    try persisting.replacingOccurrences(
      of: #"persist = composable.persist{ path = "notes.saved.lua", debounce = 0 },"#, with: ""
    ).write(to: feature, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    let saved = data.appendingPathComponent("notes.saved.lua")
    let theirs = #"return { notes = { "precious" } }"#
    try theirs.write(to: saved, atomically: true, encoding: .utf8)
    let run = try WatchedRun(feature: feature, data: data, errorsToo: true)
    run.type(#"{ type = "add", text = "one" }"#)
    #expect(run.waitFor("received action"))
    try persisting.write(to: feature, atomically: true, encoding: .utf8)
    #expect(run.waitFor("reloaded notes.lua in "))
    run.type(#"{ type = "add", text = "two" }"#)
    #expect(run.waitFor("the state was saved beside its file"), "\(run.output)")
    _ = try run.end()
    #expect(try String(contentsOf: saved, encoding: .utf8) == theirs)
    let beside = try FileManager.default.contentsOfDirectory(atPath: data.path)
      .filter { $0.hasPrefix("notes.saved.lua.conflict-") }
    #expect(beside.count == 1, "\(beside)")
  }
}

private final class Statuses: @unchecked Sendable {
  private let lock = NSLock()
  private var list: [Int32] = []
  func append(_ status: Int32) { lock.withLock { list.append(status) } }
  var all: [Int32] { lock.withLock { list } }
}
