import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `persist{ path }` against every class of bad path: a path no `DataPath` takes is an error
/// when the feature loads, naming the field, before any file is touched; a path to what is not
/// a regular file is reported at start, left where it is, and never replaced by a save.
@Suite struct PathsInPersistTests {
  static func source(path: String) -> String {
    """
    local composable = require("composable")
    return {
      persist = composable.persist{ path = \(path), debounce = 0 },
      initial_state = function() return { count = 0 } end,
      reduce = function(state) state.count = state.count + 1 end,
    }
    """
  }

  @Test func aPathNoDataPathTakesIsALoadErrorNamingTheField() throws {
    let sandbox = try PathSandbox("persist-invalid")
    defer { sandbox.remove() }
    for (name, bytes) in HostilePath.invalid(base: sandbox.base) {
      let error = featureError {
        _ = try LuaFeature(
          source: Self.source(path: HostilePath.luaLiteral(bytes)), file: "feature.lua")
      }
      #expect(
        error
          == .load(file: "feature.lua", message: "persist.path: \(HostilePath.refusal(bytes))"),
        "\(name)")
    }
    #expect(
      featureError { _ = try LuaFeature(source: Self.source(path: "\".\""), file: "feature.lua") }
        == .load(
          file: "feature.lua",
          message: "persist.path: \".\" names the data directory itself; give a file name"))
  }

  /// The issue's example, through `composable run`: a user's file beside the data directory is
  /// neither moved aside nor overwritten; the feature does not start.
  @Test func theIssuesExampleTouchesNoFileThroughTheCommand() throws {
    let sandbox = try PathSandbox("persist-command")
    defer { sandbox.remove() }
    let userFile = sandbox.base.appendingPathComponent("x")
    try Data("the user's own file".utf8).write(to: userFile)
    let feature = sandbox.base.appendingPathComponent("feature.lua")
    try Data(Self.source(path: #""..\0/x""#).utf8).write(to: feature)
    let outcome = try Command.run(
      ["run", feature.path, "--data", sandbox.root.path, "--wait", "0"], input: "go\n")
    #expect(outcome.status == 1)
    #expect(
      outcome.errors.contains(
        #"feature.lua did not load: persist.path: "..\000/x": byte 3 is 0x00 (NUL), a control "#
          + "byte; a path holds none"), "\(outcome.errors)")
    #expect(try String(contentsOf: userFile, encoding: .utf8) == "the user's own file")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: sandbox.base.path).sorted()
        == ["data", "feature.lua", "outside", "x"])
  }

  /// A saved path that names a FIFO, a socket, a directory, or leads out through a symlink, is
  /// reported at start and left as it is; the saves that follow are refused, so nothing
  /// replaces it.
  @Test(arguments: HostilePath.Special.allCases)
  func whatIsNotARegularFileIsReportedKeptAndNeverSavedOver(
    _ special: HostilePath.Special
  ) async throws {
    let sandbox = try PathSandbox("persist-special")
    defer { sandbox.remove() }
    try sandbox.make(special)
    let feature = try LuaFeature(
      source: Self.source(path: "\"\(special.rawValue)\""), file: "feature.lua")
    let files = FileClient.live(root: sandbox.root)
    let reports = Locked<[String]>([])
    let loaded = try await feature.restorePersisted(files: files) { message in
      reports.withLock { $0.append(message) }
    }
    guard case let .corrupt(reason, movedTo) = loaded else {
      Issue.record("\(special): expected the file refused, got \(loaded)")
      return
    }
    #expect(movedTo == special.rawValue, "left where it is")
    #expect(reason.hasPrefix("it cannot be read: \(special.rawValue): "), "\(reason)")
    #expect(reports.withLock { $0 }.count == 1)
    var dependencies = DependencyValues.live
    dependencies.files = files
    let store = Store(
      initialState: LuaFeatureHandle(feature: feature),
      reducer: LuaFeatureReducer<LuaFeatureHandle>(
        feature: feature, dependencies: dependencies,
        readState: { LuaFeatureHandle(feature: $0) }, onError: { _ in }))
    await store.send("increment").finish()
    await #expect(throws: StateSaverRefusal.self) { try await feature.savePending(files: files) }
    #expect(throws: StateSaverRefusal.self) {
      try feature.savePending { path, contents in
        try FileClient.writeNow(path, contents, under: sandbox.root)
      } read: { path in try FileClient.readNow(path, under: sandbox.root) }
    }
    #expect(sandbox.neighbours() == PathSandbox.untouched)
    var status = stat()
    #expect(lstat(sandbox.root.appendingPathComponent(special.rawValue).path, &status) == 0)
    let expectedType: mode_t =
      switch special {
      case .symlinkOut: S_IFREG  // the file beside the root, through the link: untouched above
      case .fifo: S_IFIFO
      case .deviceThroughSymlink: S_IFLNK
      case .socket: S_IFSOCK
      case .directory: S_IFDIR
      }
    #expect(status.st_mode & S_IFMT == expectedType, "\(special) is still what it was")
  }
}
