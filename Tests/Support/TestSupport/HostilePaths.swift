import Composable
import Foundation
import LuaKit
import Testing

/// The classes of path a careless user or an attacker can give, for the tests that run each
/// through every entry point (file effects, `file.*` in `effect.run`, `persist{ path }`, a Lua
/// test's fixture, a session's `feature`).
public enum HostilePath {
  /// Text no `DataPath` takes, each with a name for messages. `base` is the folder around the
  /// root, where an escape would land.
  public static func invalid(base: URL) -> [(name: String, bytes: [UInt8])] {
    var paths: [(String, [UInt8])] = [
      ("NUL after ..", Array("..\u{0}/escaped.txt".utf8)),
      ("NUL before ..", Array("\u{0}../escaped.txt".utf8)),
      ("NUL after a name", Array("a\u{0}/../../escaped.txt".utf8)),
      ("absolute, to a neighbour", Array((base.path + "/escaped.txt").utf8)),
      ("absolute, /etc/passwd", Array("/etc/passwd".utf8)),
      ("..", Array("..".utf8)),
      ("../ first", Array("../escaped.txt".utf8)),
      (".. in the middle", Array("a/../../escaped.txt".utf8)),
      (".. last", Array("a/..".utf8)),
      ("empty", []),
      ("very long", Array(repeating: UInt8(ascii: "a"), count: 5000)),
      ("a very long name", Array(repeating: UInt8(ascii: "a"), count: 300)),
      ("not UTF-8", [0x61, 0xFF, 0x2E, 0x74]),
      ("a C1 control character", Array("a\u{9B}31m/../b".utf8)),
    ]
    for byte in Array(UInt8(0x01)...UInt8(0x1F)) + [0x7F] {
      paths.append(("control byte \(byte)", Array("a".utf8) + [byte] + Array("/../../b.txt".utf8)))
    }
    return paths
  }

  /// What `DataPath` says of `bytes` (each test pins that the entry point names its field
  /// before it; DataPathTests pins these words).
  public static func refusal(_ bytes: [UInt8]) -> String {
    do {
      let path = try DataPath(validating: bytes)
      Issue.record("\(path) was taken as a path")
      return ""
    } catch {
      return error.description
    }
  }

  /// `bytes` as a Lua string literal that reads back as exactly those bytes.
  public static func luaLiteral(_ bytes: [UInt8]) -> String {
    "\"" + bytes.map { "\\" + String(repeating: "0", count: 3 - String($0).count) + String($0) }
      .joined() + "\""
  }

  /// Valid paths that name what the host must refuse, made in a sandbox's root.
  public enum Special: String, CaseIterable, Sendable {
    /// `door` is a symlink to the folder beside the root; the path is a file in there.
    case symlinkOut = "door/secret.txt"
    /// A FIFO with no writer: opening it to read would wait forever.
    case fifo = "pipe"
    /// A symlink to `/dev/zero`, which never ends.
    case deviceThroughSymlink = "zero"
    /// A Unix socket.
    case socket = "sock"
    /// A directory, where a file is meant.
    case directory = "folder"

    public var path: DataPath { DataPath(stringLiteral: rawValue) }
  }
}

/// A data directory (`root`) inside a folder of its own (`base`), with neighbours an escape
/// would reach: `outside/secret.txt` beside the root.
public struct PathSandbox {
  public let base: URL
  public let root: URL

  public init(_ prefix: String) throws {
    base = try makeTemporaryDirectory(prefix)
    root = base.appendingPathComponent("data")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let outside = base.appendingPathComponent("outside")
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    try Data("secret".utf8).write(to: outside.appendingPathComponent("secret.txt"))
  }

  public func remove() { try? FileManager.default.removeItem(at: base) }

  /// Makes what `special` names in `directory` (the root by default).
  public func make(_ special: HostilePath.Special, in directory: URL? = nil) throws {
    let directory = directory ?? root
    let url = directory.appendingPathComponent(special.rawValue)
    switch special {
    case .symlinkOut:
      try FileManager.default.createSymbolicLink(
        atPath: directory.appendingPathComponent("door").path,
        withDestinationPath: base.appendingPathComponent("outside").path)
    case .fifo:
      try #require(mkfifo(url.path, 0o644) == 0)
    case .deviceThroughSymlink:
      try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "/dev/zero")
    case .socket:
      try bindSocket(at: url.path)
    case .directory:
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      try Data("inside".utf8).write(to: url.appendingPathComponent("inner.txt"))
    }
  }

  public func makeAll(in directory: URL? = nil) throws {
    for special in HostilePath.Special.allCases { try make(special, in: directory) }
  }

  /// Everything beside the root, by path, with each file's contents: what an escape would
  /// change. (`root` itself is left out; what is in it is the feature's.)
  public func neighbours() -> [String: String] {
    var found: [String: String] = [:]
    let enumerator = FileManager.default.enumerator(atPath: base.path)
    while let relative = enumerator?.nextObject() as? String {
      if relative == "data" || relative.hasPrefix("data/") { continue }
      let url = base.appendingPathComponent(relative)
      found[relative] = (try? String(contentsOf: url, encoding: .utf8)) ?? "(not a text file)"
    }
    return found
  }

  /// What every escape test expects beside the root: the neighbour as it was, nothing more.
  public static let untouched = ["outside": "(not a text file)", "outside/secret.txt": "secret"]

  private func bindSocket(at path: String) throws {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8CString)
    try #require(bytes.count <= MemoryLayout.size(ofValue: address.sun_path))
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    try #require(bound == 0)
  }
}
