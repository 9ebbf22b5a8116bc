import ComposableLua
import Foundation
import TestSupport
import Testing

/// A path a person gives names the file the kernel opens (`URL(pathGiven:)`): `link/../f.lua`
/// is the `f.lua` beside the folder the link points to, never the one beside the link, as
/// Foundation's relative `URL(fileURLWithPath:)` had it.
@Suite struct PathsGivenTests {
  /// A tree with links of every kind: to a folder, to a folder's folder, up (`..`), to an absolute
  /// place, a chain, a file link, and a `f.lua` at each level so the wrong one is easy to open.
  static func tree() throws -> URL {
    let root = try makeTemporaryDirectory("paths-given")
    let manager = FileManager.default
    for folder in ["real/sub/deep", "other"] {
      try manager.createDirectory(
        at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
    }
    for (index, file) in [
      "f.lua", "real/f.lua", "real/sub/f.lua", "real/sub/deep/f.lua",
      "other/f.lua",
    ].enumerated() {
      try Data("-- \(index)\n".utf8).write(to: root.appendingPathComponent(file))
    }
    let links = [
      ("lnk", "real/sub"), ("deeplnk", "real/sub/deep"), ("up", ".."),
      ("abs", root.path + "/other"),
      ("chain", "lnk"), ("filelnk", "real/f.lua"), ("real/sub/back", "../../other"),
    ]
    for (name, target) in links {
      try manager.createSymbolicLink(
        atPath: root.appendingPathComponent(name).path, withDestinationPath: target)
    }
    return root
  }

  /// What the kernel opens for `path` from `root`: its device and inode, or nil.
  static func kernelFile(_ path: String, from root: URL) -> [UInt64]? {
    let folder = open(root.path, O_RDONLY | O_DIRECTORY)
    guard folder >= 0 else { return nil }
    defer { close(folder) }
    var status = stat()
    guard fstatat(folder, path, &status, 0) == 0 else { return nil }
    return [UInt64(status.st_dev), UInt64(status.st_ino)]
  }

  static func file(_ url: URL) -> [UInt64]? {
    var status = stat()
    guard stat(url.path, &status) == 0 else { return nil }
    return [UInt64(status.st_dev), UInt64(status.st_ino)]
  }

  /// Every path of up to four parts (links, folders, `..`, `.`, empty parts) then `f.lua`,
  /// relative and absolute: `URL(pathGiven:)` names what the kernel opens, or nothing when the
  /// kernel opens nothing, and its path keeps no `..` for a later `standardizedFileURL` to take as
  /// text.
  @Test func everyPathNamesTheFileTheKernelOpens() throws {
    let root = try Self.tree()
    defer { try? FileManager.default.removeItem(at: root) }
    let parts = ["lnk", "deeplnk", "up", "abs", "chain", "real", "sub", "back", "..", ".", ""]
    var level: [[String]] = [[]], paths = level
    for _ in 1...4 {
      level = level.flatMap { path in parts.map { path + [$0] } }
      paths += level
    }
    var compared = 0, opened = 0
    for parts in paths {
      let relative = (parts + ["f.lua"]).joined(separator: "/")
      for path in [relative, root.path + "/" + relative] {
        let url = URL(pathGiven: path, from: root.path)
        let expected = Self.kernelFile(path, from: root)
        #expect(Self.file(url) == expected, "\(path) -> \(url.path)")
        if expected != nil {
          opened += 1
          #expect(!url.path.split(separator: "/").contains(".."), "\(path) -> \(url.path)")
          #expect(url.standardizedFileURL.path == url.path, "\(path) -> \(url.path)")
        }
        compared += 1
      }
    }
    #expect(compared > 20_000)
    #expect(opened > 1_000)
  }

  /// The folders themselves, `..` last, and a trailing slash: a folder, as the kernel has it.
  @Test func aPathEndingInDotsNamesTheFolderTheKernelGoesUpTo() throws {
    let root = try Self.tree()
    defer { try? FileManager.default.removeItem(at: root) }
    for path in [
      "lnk/..", "lnk/../", "lnk/./..", "chain/../sub/..", "up/..", "abs/..", "lnk/.",
      "deeplnk/../..//",
    ] {
      let url = URL(pathGiven: path, from: root.path)
      #expect(Self.file(url) == Self.kernelFile(path, from: root), "\(path) -> \(url.path)")
      #expect(url.hasDirectoryPath, "\(path)")
    }
  }

  /// Links after the last `..` stay links: hot reload follows them when they are re-pointed.
  @Test func linksAfterTheLastDotsAreKept() throws {
    let root = try Self.tree()
    defer { try? FileManager.default.removeItem(at: root) }
    let url = URL(pathGiven: "lnk/../../filelnk", from: root.path)
    let resolvedRoot = URL(fileURLWithPath: root.path).resolvingSymlinksInPath().path
    #expect(url.path == resolvedRoot + "/filelnk")
  }
}
