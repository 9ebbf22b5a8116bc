import Composable
import Foundation
import Testing

/// A process killed between making a write's temporary file and renaming it left the file
/// there for good (`.NAME.UUID.tmp`), one more at each kill (an attacker's finding). A write
/// into a folder removes the leftovers there whose process is gone, and nothing else.
@Suite struct LiveFileLeftoversTests {
  /// A process ID no process has: above the kernel's largest (4,194,304).
  static let gone: Int32 = 0x7FFF_FFF0

  @Test func aWriteRemovesTheLeftoversOfItsFileWhoseProcessIsGone() async throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("leftovers-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let old = Date().addingTimeInterval(-3600)
    func make(_ name: String, modified: Date = old, directory: Bool = false) throws {
      let url = root.appendingPathComponent(name)
      if directory {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
      } else {
        try Data("half a state".utf8).write(to: url)
      }
      try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: url.path)
    }
    let uuid = { UUID().uuidString }
    let removed = [
      ".state.lua.\(Self.gone).\(uuid()).tmp",  // its process is gone
      ".state.lua.\(uuid()).tmp",  // named before the process was: long gone
      ".other.lua.\(Self.gone).\(uuid()).tmp",  // another file's, in the same folder
      ".state.lua.x.\(Self.gone).\(uuid()).tmp",
      ".notes.lua.-1.\(uuid()).tmp",  // the old name of a file `notes.lua.-1`
    ]
    let kept = [
      ".state.lua.\(Self.gone).\(uuid()).tmp",  // too new: maybe a process not seen from here
      ".state.lua.\(getpid()).\(uuid()).tmp",  // a process that is there (this one)
      ".state.lua.\(getppid()).\(uuid()).tmp",
      ".state.lua.0.\(uuid()).tmp",
      ".state.lua.\(Self.gone).not-a-uuid.tmp",
      ".\(uuid()).tmp",  // no file's name in it
      "state.lua.\(Self.gone).\(uuid()).tmp",  // not hidden: not one of ours
      ".state.lua.\(Self.gone).\(uuid()).tmp.bak",
    ]
    for name in removed { try make(name) }
    try make(kept[0], modified: Date())
    for name in kept.dropFirst() { try make(name) }
    let folder = ".state.lua.\(Self.gone).\(uuid()).tmp"
    try make(folder, directory: true)  // not a file: left

    let files = FileClient.live(root: root)
    try await files.write("state.lua", Array("return {}".utf8))
    let after = Set(try FileManager.default.contentsOfDirectory(atPath: root.path))
    #expect(after == Set(kept + [folder, "state.lua"]))
    #expect(try await files.read("state.lua") == Array("return {}".utf8))
  }

  /// Folders made one after another, each removed before the next (so the next may get its
  /// inode): each is looked at (by device and inode, a later one was taken for one looked at).
  @Test func eachNewFolderIsLookedAt() async throws {
    for round in 0..<4 {
      let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("leftovers-again-\(round)-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
      let leftover = root.appendingPathComponent(".state.lua.\(Self.gone).\(UUID().uuidString).tmp")
      try Data("half".utf8).write(to: leftover)
      try FileManager.default.setAttributes(
        [.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: leftover.path)
      try await FileClient.live(root: root).write("state.lua", [1])
      #expect(!FileManager.default.fileExists(atPath: leftover.path), "round \(round)")
      try FileManager.default.removeItem(at: root)
    }
  }

  /// A folder of many files, some with long names, listed over and over: each entry's name is
  /// read within the entry (the whole 256-byte field was copied, past the end of the buffer the
  /// last entry ended: a crash after some hundred writes into a folder of 20,000 files, where
  /// that buffer ended a mapping; here, in the sanitized suite, the read past it is a finding).
  @Test func aFolderOfManyFilesIsListedWhole() async throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("many-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    var names: [String] = []
    for n in 0..<20_000 {
      let name = n % 7 == 0 ? String(repeating: "n", count: 200 + n % 50) + "\(n)" : "f\(n)"
      names.append(name)
      guard
        FileManager.default.createFile(
          atPath: root.appendingPathComponent(name).path, contents: nil)
      else { throw CocoaError(.fileWriteUnknown) }
    }
    let files = FileClient.live(root: root)
    for round in 0..<60 {
      try await files.write(DataPath(validating: Array("w\(round)".utf8)), [1])
      let listed = try await files.list(.root)
      #expect(listed.count == names.count + round + 1)
      if round == 0 { #expect(Set(listed).isSuperset(of: names)) }
    }
  }

  /// A file of the caller's under a temporary file's name would be taken for a leftover and
  /// removed once its process is gone (an attacker's finding): writes and appends of such names
  /// are refused, by the live client and the one in memory alike, whatever the process or the
  /// folder; the names around the form are written as any.
  @Test func aNameOfATemporaryFilesFormIsNotWritten() async throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("temporary-names-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let uuid = { UUID().uuidString }
    let refused = [
      ".a.\(getpid()).\(uuid()).tmp", ".a.\(Self.gone).\(uuid()).tmp", ".a.0.\(uuid()).tmp",
      ".a.\(uuid()).tmp", ".a.b.c.\(uuid()).tmp", ".composable-feature.old.7.\(uuid()).tmp",
      "deep/er/.x.1.\(uuid().lowercased()).tmp",
      // A combining mark after the dot, or after a name's last letter: the form is in the bytes.
      ".\u{301}a.1.\(uuid()).tmp", ".a\u{301}.1.\(uuid()).tmp", ".\u{200D}.\(uuid()).tmp",
    ]
    let written = [
      ".\(uuid()).tmp", ".a.1.not-a-uuid.tmp", "a.1.\(uuid()).tmp", ".a.1.\(uuid()).tmp.bak",
      ".a.1.\(uuid()).TMP", ".a.1.\(uuid())tmp", "..a.tmp",
    ]
    for client in [FileClient.live(root: root), .inMemory()] {
      for name in refused {
        let path = try DataPath(validating: name)
        for operation in ["write", "append"] {
          do {
            if operation == "write" {
              try await client.write(path, [1])
            } else {
              try await client.append(path, [1])
            }
            Issue.record("\(operation) \(name) was not refused")
          } catch let error as FileClientError {
            #expect(
              error.description
                == "\(path): a name of this form (.NAME.PID.UUID.tmp) is kept for a write's "
                + "temporary file, removed once the process that wrote it is gone; give the file "
                + "another name")
          }
          #expect(try await !client.exists(path))
        }
      }
      for name in written {
        let path = try DataPath(validating: name)
        try await client.write(path, [1])
        try await client.append(path, [2])
        #expect(try await client.read(path) == [1, 2], "\(name)")
      }
      // Hidden names are not listed, in memory as on disk.
      try await client.write("shown", [1])
      #expect(try await client.list(.root) == ["a.1.\(written[2].dropFirst(4))", "shown"])
    }
    // Nor through a symlink whose target has that form.
    let target = ".b.\(Self.gone).\(uuid()).tmp"
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("link").path, withDestinationPath: target)
    await #expect(throws: FileClientError.self) {
      try await FileClient.live(root: root).write("link", [1])
    }
    #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent(target).path))
    #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("deep").path))
  }
}

/// `FileClient.live(reserving:)`: the host's files at the top of the root are not written,
/// appended to or removed, by whatever path, and read as any.
@Suite struct LiveFileReservedNamesTests {
  @Test func aReservedNameIsKnownByWhereItIs() async throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("reserved-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    try Data("mine".utf8).write(to: root.appendingPathComponent("keep"))
    for (name, target) in [("link", "keep"), ("here", "."), ("sub/up", "..")] {
      try FileManager.default.createSymbolicLink(
        atPath: root.appendingPathComponent(name).path, withDestinationPath: target)
    }
    let files = FileClient.live(root: root, reserving: ["keep": "the host's"])
    for path: DataPath in ["keep", "link", "here/keep", "sub/up/keep", "here/sub/up/here/keep"] {
      for operation in ["write", "append", "remove"]
      where !(operation == "remove" && path == "link") {
        do {
          switch operation {
          case "write": try await files.write(path, [1])
          case "append": try await files.append(path, [1])
          default: try await files.remove(path)
          }
          Issue.record("\(operation) \(path) was not refused")
        } catch let error as FileClientError {
          #expect(error.description == "\(path): the host's")
        }
      }
      #expect(try await files.read(path) == Array("mine".utf8))
    }
    // The link itself is the caller's to remove; a name below the top is the caller's.
    try await files.remove("link")
    try await files.write("sub/keep", [2])
    #expect(try await files.read("sub/keep") == [2])
    #expect(try Data(contentsOf: root.appendingPathComponent("keep")) == Data("mine".utf8))
  }

  /// Names that start as the host's (`.composable-`) are refused at the top by any path, as a
  /// reserved name is: a link named otherwise reached one (`persist.path` refused the name alone).
  @Test func aReservedStartIsKnownByWhereItIs() async throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("reserved-start-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    try Data("mine".utf8).write(to: root.appendingPathComponent(".host-cache"))
    for (name, target) in [("link", ".host-cache"), ("new", ".host-new"), ("here", ".")] {
      try FileManager.default.createSymbolicLink(
        atPath: root.appendingPathComponent(name).path, withDestinationPath: target)
    }
    let files = FileClient.live(
      root: root, reserving: [".host-marker": "the marker"],
      reservingNamesStartingWith: [".host-": "the host's"])
    // A combining mark or a joiner after the start (an attacker's finding: `hasPrefix` compares
    // characters, and `-` then U+0301 is another character than `-`).
    let marked: [DataPath] = [
      try DataPath(validating: ".host-\u{301}x"), try DataPath(validating: ".host-\u{200D}"),
    ]
    for path in marked {
      #expect(throws: FileClientError.self) {
        try FileClient.refuseHostName(
          try DataPath(validating: ".composable-" + path.description.dropFirst(6)))
      }
    }
    for path: DataPath in [".host-cache", "link", "new", "here/.host-other", ".host-marker"]
      + marked
    {
      for operation in ["write", "append"] {
        do {
          if operation == "write" {
            try await files.write(path, [1])
          } else {
            try await files.append(path, [1])
          }
          Issue.record("\(operation) \(path) was not refused")
        } catch let error as FileClientError {
          let why = path == ".host-marker" ? "the marker" : "the host's"
          #expect(error.description == "\(path): \(why)")
        }
      }
    }
    #expect(try await files.read("link") == Array("mine".utf8))
    // Below the top, and a name that only holds the start, are the caller's.
    try await files.write("sub/.host-cache", [2])
    try await files.write("x.host-cache", [3])
    #expect(try await files.read("sub/.host-cache") == [2])
    let names = try FileManager.default.contentsOfDirectory(atPath: root.path)
    #expect(Set(names) == [".host-cache", "link", "new", "here", "sub", "x.host-cache"])
  }
}
