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
    let current = directory.appendingPathComponent("current")
    try Self.link(current, to: "a")
    let file = current.appendingPathComponent("feature.lua")
    let saves = Saves()
    let watcher = try FileWatcher(files: [file]) { saves.add($0) }
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
    try Self.source(3).write(
      to: directory.appendingPathComponent("b/feature.lua"), atomically: true, encoding: .utf8)
    #expect(saves.wait(for: 2) == [[first.path], [first.path]])
    // The old file is off the way now.
    try Self.source(4).write(
      to: directory.appendingPathComponent("a/feature.lua"), atomically: true, encoding: .utf8)
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
