import ComposableHost
import ComposableLua
import Foundation
import TestSupport
import Testing

/// A feature opened through symlinks gets other code when a link on the way is re-pointed (a
/// release switched with `ln -sfn`, a folder of versions): that is a save of it, reported as
/// the path given, and hot reload loads what the path reads now. Before, only the file the links
/// led to at the start was watched: a re-pointed link was seen by no reload until another save.
@Suite(.serialized) struct WatchedLinksTests {
  typealias Saves = HotReloadTests.Saves

  /// A folder with two versions of a feature, `a/feature.lua` and `b/feature.lua`.
  static func versions() throws -> URL {
    let directory = try makeTemporaryDirectory("links")
    for (name, version) in [("a", 1), ("b", 2)] {
      let folder = directory.appendingPathComponent(name)
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try Self.source(version).write(
        to: folder.appendingPathComponent("feature.lua"), atomically: false, encoding: .utf8)
    }
    return directory
  }

  static func source(_ version: Int) -> String {
    """
    return {
      initial_state = function() return { version = 0 } end,
      reduce = function(state) state.version = \(version) end,
    }
    """
  }

  /// `current -> a` in `directory`, and a watcher of `current/feature.lua`.
  static func watchedThroughCurrent(
    _ directory: URL
  ) throws -> (current: URL, file: URL, saves: Saves, watcher: FileWatcher) {
    let current = directory.appendingPathComponent("current")
    try Self.link(current, to: "a")
    let file = current.appendingPathComponent("feature.lua")
    let saves = Saves()
    let watcher = try FileWatcher(files: [file]) { saves.add($0) }
    return (current, file, saves, watcher)
  }

  /// Writes version `version` of the feature at `path` under `directory`.
  static func write(_ version: Int, at path: String, in directory: URL) throws {
    try source(version).write(
      to: directory.appendingPathComponent(path), atomically: false, encoding: .utf8)
  }

  static func link(_ link: URL, to target: String) throws {
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target)
  }

  /// `ln -sfn`: a new link made beside, renamed over the old one.
  static func repoint(_ link: URL, to target: String) throws {
    let temporary = link.deletingLastPathComponent().appendingPathComponent(".new-link")
    try Self.link(temporary, to: target)
    #expect(rename(temporary.path, link.path) == 0)
  }

  enum Way: String, CaseIterable {
    case renamedOver, removedAndMade, lnCommand
  }

  static func repoint(_ link: URL, to target: String, _ way: Way) throws {
    switch way {
    case .renamedOver: try repoint(link, to: target)
    case .removedAndMade:
      try FileManager.default.removeItem(at: link)
      try Self.link(link, to: target)
    case .lnCommand:
      let ln = Process()
      ln.executableURL = URL(fileURLWithPath: "/bin/ln")
      ln.arguments = ["-sfn", target, link.path]
      try ln.run()
      ln.waitUntilExit()
      #expect(ln.terminationStatus == 0)
    }
  }

  @Test(arguments: Way.allCases) func aLinkToTheFileRepointedIsOneSave(_ way: Way) throws {
    let directory = try Self.versions()
    defer { try? FileManager.default.removeItem(at: directory) }
    let link = directory.appendingPathComponent("feature.lua")
    try Self.link(link, to: "a/feature.lua")
    let saves = Saves()
    let watcher = try FileWatcher(files: [link]) { saves.add($0) }
    defer { watcher.stop() }
    try Self.repoint(link, to: "b/feature.lua", way)
    #expect(saves.wait(for: 1) == [[link.path]])
  }

  /// A folder's link on the way (`current -> releases/a`), re-pointed.
  @Test(arguments: Way.allCases) func aLinkToItsFolderRepointedIsOneSave(_ way: Way) throws {
    let directory = try Self.versions()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (current, file, saves, watcher) = try Self.watchedThroughCurrent(directory)
    defer { watcher.stop() }
    try Self.repoint(current, to: directory.appendingPathComponent("b").path, way)
    #expect(saves.wait(for: 1) == [[file.path]])
  }

  /// Links to links, a `..` after a link, and a save of the file at the end: each is one save of
  /// the path given, and a link off the way is none.
  @Test func everyLinkOnTheWayCountsAndNoOther() throws {
    let directory = try Self.versions()
    defer { try? FileManager.default.removeItem(at: directory) }
    let inner = directory.appendingPathComponent("a/inner")
    try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
    try Self.link(inner.appendingPathComponent("up"), to: "..")
    // first.lua -> a/inner/up/../second.lua, that is, a/second.lua... -> a/feature.lua
    try Self.link(directory.appendingPathComponent("a/second.lua"), to: "feature.lua")
    let first = directory.appendingPathComponent("first.lua")
    try Self.link(first, to: "a/inner/up/second.lua")
    let unrelated = directory.appendingPathComponent("unrelated.lua")
    try Self.link(unrelated, to: "a/feature.lua")
    let saves = Saves()
    let watcher = try FileWatcher(files: [first]) { saves.add($0) }
    defer { watcher.stop() }
    try Self.repoint(unrelated, to: "b/feature.lua")
    #expect(saves.wait(for: 1, seconds: 0.5).isEmpty)
    try Self.repoint(directory.appendingPathComponent("a/second.lua"), to: "../b/feature.lua")
    #expect(saves.wait(for: 1) == [[first.path]])
    // Watched again where it leads now (hot reload calls watch after each save).
    try watcher.watch([first])
    try Self.write(3, at: "b/feature.lua", in: directory)
    #expect(saves.wait(for: 2) == [[first.path], [first.path]])
    // The old file is off the way now.
    try Self.write(4, at: "a/feature.lua", in: directory)
    #expect(saves.wait(for: 3, seconds: 0.5).count == 2)
  }

  /// Links in a loop: watched as far as they go, no hang; made right, a save.
  @Test func linksInALoopAreWatchedAsFarAsTheyGo() throws {
    let directory = try Self.versions()
    defer { try? FileManager.default.removeItem(at: directory) }
    let one = directory.appendingPathComponent("one.lua")
    try Self.link(one, to: "two.lua")
    try Self.link(directory.appendingPathComponent("two.lua"), to: "one.lua")
    let saves = Saves()
    let watcher = try FileWatcher(files: [one]) { saves.add($0) }
    defer { watcher.stop() }
    try Self.repoint(directory.appendingPathComponent("two.lua"), to: "a/feature.lua")
    #expect(saves.wait(for: 1) == [[one.path]])
  }

  /// The watcher follows a link re-pointed by itself, at once: a save of the new file is seen
  /// with no `watch` call after (a save made just after the re-pointing, before the host's
  /// reload watched again, was lost).
  @Test func aRepointedLinkIsFollowedAtOnce() throws {
    let directory = try Self.versions()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (current, file, saves, watcher) = try Self.watchedThroughCurrent(directory)
    defer { watcher.stop() }
    try Self.repoint(current, to: "b")
    #expect(saves.wait(for: 1) == [[file.path]])
    try Self.write(3, at: "b/feature.lua", in: directory)
    #expect(saves.wait(for: 2) == [[file.path], [file.path]])
    // The file the link led to before is off the way: no save.
    try Self.write(4, at: "a/feature.lua", in: directory)
    #expect(saves.wait(for: 3, seconds: 0.5).count == 2)
  }

  /// A link re-pointed to a folder not made yet: the folder is looked for, and its file, once
  /// written, is a save. A folder link replaced by a real folder: watched as that folder.
  @Test func aLinkToAFolderNotMadeYetOrMadeRealIsFollowed() throws {
    let directory = try Self.versions()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (current, file, saves, watcher) = try Self.watchedThroughCurrent(directory)
    defer { watcher.stop() }
    try Self.repoint(current, to: "c")
    #expect(saves.wait(for: 1) == [[file.path]])
    let later = directory.appendingPathComponent("c")
    try FileManager.default.createDirectory(at: later, withIntermediateDirectories: true)
    try Self.source(3).write(
      to: later.appendingPathComponent("feature.lua"), atomically: false, encoding: .utf8)
    #expect(saves.wait(for: 2).count == 2)
    // The link gone, a real folder in its place.
    try FileManager.default.removeItem(at: current)
    try FileManager.default.createDirectory(at: current, withIntermediateDirectories: true)
    try Self.source(4).write(to: file, atomically: false, encoding: .utf8)
    let afterReal = saves.wait(for: 3).count
    #expect(afterReal >= 3)
    try Self.source(5).write(to: file, atomically: false, encoding: .utf8)
    #expect(saves.wait(for: afterReal + 1).count == afterReal + 1)
  }

  /// `lnk/../feature.lua`, where `lnk` leads into a folder of another: `..` goes up from where
  /// the link led, as the kernel reads it. And a link whose target is longer than 1,024 bytes is
  /// read whole (cut, the watcher could not start).
  @Test func aDotDotAfterALinkAndALongTargetAreReadAsTheKernelReadsThem() throws {
    let directory = try Self.versions()
    defer { try? FileManager.default.removeItem(at: directory) }
    for name in ["a/deeper", "b/deeper"] {
      try FileManager.default.createDirectory(
        at: directory.appendingPathComponent(name), withIntermediateDirectories: true)
    }
    try Self.link(directory.appendingPathComponent("lnk"), to: "a/deeper")
    let file = URL(fileURLWithPath: directory.path + "/lnk/../feature.lua")
    let saves = Saves()
    let watcher = try FileWatcher(files: [file]) { saves.add($0) }
    defer { watcher.stop() }
    try Self.write(3, at: "a/feature.lua", in: directory)
    #expect(saves.wait(for: 1) == [[file.path]])
    try Self.repoint(directory.appendingPathComponent("lnk"), to: "b/deeper")
    #expect(saves.wait(for: 2) == [[file.path], [file.path]])

    var long = directory.appendingPathComponent("b")
    for level in 0..<24 { long.appendPathComponent(String(repeating: "d\(level % 10)", count: 25)) }
    try FileManager.default.createDirectory(at: long, withIntermediateDirectories: true)
    let target = long.appendingPathComponent("feature.lua")
    try Self.source(6).write(to: target, atomically: false, encoding: .utf8)
    #expect(target.path.utf8.count > 1_200)
    let link = directory.appendingPathComponent("long.lua")
    try Self.link(link, to: target.path)
    let longSaves = Saves()
    let longWatcher = try FileWatcher(files: [link]) { longSaves.add($0) }
    defer { longWatcher.stop() }
    try Self.source(7).write(to: target, atomically: false, encoding: .utf8)
    #expect(longSaves.wait(for: 1) == [[link.path]])
  }

  /// Hot reload of a feature opened through a link: re-pointed, the code it leads to runs, and
  /// the report names the feature alone.
  @Test func hotReloadLoadsWhatTheLinkLeadsToNow() async throws {
    let directory = try Self.versions()
    defer { try? FileManager.default.removeItem(at: directory) }
    let link = directory.appendingPathComponent("feature.lua")
    try Self.link(link, to: "a/feature.lua")
    let feature = try LuaFeature(contentsOf: link)
    let reports = Locked<[String]>([])
    let reload = try HotReload(feature: feature, file: link) { changed in
      HotReload.reload(
        feature, from: link, changed: changed,
        report: { line in reports.withLock { $0.append(line) } },
        fail: { line in reports.withLock { $0.append("failed: " + line) } })
    }
    defer { reload.stop() }
    try Self.repoint(link, to: "b/feature.lua")
    for _ in 0..<500 where reports.withLock({ $0.isEmpty }) {
      try await Task.sleep(for: .milliseconds(10))
    }
    let lines = reports.withLock { $0 }
    #expect(
      lines.count == 1 && lines.first?.hasPrefix("reloaded feature.lua in ") == true,
      "\(lines)")
    try feature.step(["type": "go"])
    #expect(try feature.state() == ["version": 2])
  }
}
