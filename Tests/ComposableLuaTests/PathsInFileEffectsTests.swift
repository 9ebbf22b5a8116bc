import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// Every file operation, as an effect (`effect.file.*`) and inside `effect.run` (`file.*`),
/// against every class of bad path: a path no `DataPath` takes fails the action that returned
/// the effect (rolled back, the field named) or answers `ok = false` inside `effect.run`; a
/// path to what is not a regular file under the root is refused by the live client; and in
/// every case nothing beside the data directory changes and nothing waits.
@Suite struct PathsInFileEffectsTests {
  static let source = """
    local effect = require("composable.effect")
    return {
      initial_state = function() return { results = {} } end,
      reduce = function(state, action)
        if action.type == "effect" then
          state.touched = true
          local request = { path = action.path, response = "done" }
          if action.op == "write" or action.op == "append" then request.contents = "x" end
          return effect.file[action.op](request)
        elseif action.type == "run" then
          return effect.run(function(send)
            local result = file[action.op](action.path, "x")
            send({ type = "done", ok = result.ok, error = result.error })
          end)
        elseif action.type == "done" then
          state.results[#state.results + 1] = action.ok and "ok" or action.error
        end
      end,
    }
    """

  /// A live store over the feature, its files under `root`, its errors collected.
  /// (Other suites' features of the same actions use it with their `source`.)
  struct Host {
    let feature: LuaFeature
    let store: Store<LuaFeatureHandle, LuaValue>
    let errors = Errors()
    let files: FileClient

    init(
      root: URL, source: String = PathsInFileEffectsTests.source,
      readLimit: Int = FileClient.defaultReadLimit
    ) throws {
      feature = try LuaFeature(source: source, file: "feature.lua")
      files = .live(root: root, readLimit: readLimit)
      var dependencies = DependencyValues.live
      dependencies.files = files
      let errors = self.errors
      store = Store(
        initialState: LuaFeatureHandle(feature: feature),
        reducer: LuaFeatureReducer<LuaFeatureHandle>(
          feature: feature, dependencies: dependencies,
          readState: { LuaFeatureHandle(feature: $0) }, onError: { errors.append($0) }))
    }

    /// Sends `kind` ("effect" or "run") of `operation` on `path` and waits for its effects:
    /// the result it answered (nil when the action failed instead), and the errors it caused.
    func attempt(
      _ kind: String, _ operation: String, _ path: [UInt8]
    ) async throws -> (result: String?, errors: [LuaFeatureError], touched: Bool) {
      let before = errors.all.count
      let count = try feature.state().results.tableValue?.count ?? 0
      let action: LuaValue = [
        "type": .string(LuaString(kind)), "op": .string(LuaString(operation)),
        "path": .string(LuaString(bytes: path)),
      ]
      await store.send(action).finish()
      let state = try feature.state()
      let results = state.results.tableValue?.sequence ?? []
      let result = results.count > count ? results.last?.stringValue : nil
      return (result, Array(errors.all.dropFirst(before)), state.touched != .nil)
    }
  }

  static let operations = ["read", "write", "append", "list", "remove", "exists"]

  @Test(arguments: operations)
  func aPathNoDataPathTakesFailsTheActionNamingTheField(_ operation: String) async throws {
    let sandbox = try PathSandbox("paths-effects")
    defer { sandbox.remove() }
    let host = try Host(root: sandbox.root)
    for (name, bytes) in HostilePath.invalid(base: sandbox.base) {
      let (result, errors, touched) = try await host.attempt("effect", operation, bytes)
      #expect(result == nil, "\(name): no effect ran")
      #expect(!touched, "\(name): the action's write was rolled back")
      let found = errors.map { error -> String in
        guard case let .malformedEffect(_, path, message) = error else { return "\(error)" }
        return "\(path): \(message)"
      }
      #expect(
        found == ["effect.request.path: effect.file.\(operation): \(HostilePath.refusal(bytes))"],
        "\(name)")
      #expect(sandbox.neighbours() == PathSandbox.untouched, "\(name)")
    }
  }

  /// The pinned message, once, whole: the issue's example.
  @Test func theIssuesExampleIsRefusedInTheseWords() async throws {
    let sandbox = try PathSandbox("paths-example")
    defer { sandbox.remove() }
    let host = try Host(root: sandbox.root)
    let (_, errors, _) = try await host.attempt(
      "effect", "write", Array("..\u{0}/escaped.txt".utf8))
    #expect(errors.map(\.description) == [
      #"""
      the reducer returned a malformed effect for { op = "write", path = "..\000/escaped.txt", \#
      type = "effect" }, and the state was rolled back: effect.request.path: effect.file.write: \#
      "..\000/escaped.txt": byte 3 is 0x00 (NUL), a control byte; a path holds none
      """#
    ])
    #expect(sandbox.neighbours() == PathSandbox.untouched)
    #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.root.path) == [])
  }

  /// A file over the read limit answers a failure that names the path and the limit, and
  /// quotes none of its contents; one at the limit reads.
  @Test(arguments: ["effect", "run"])
  func aFileOverTheReadLimitIsAFailureThatQuotesNothing(_ kind: String) async throws {
    let sandbox = try PathSandbox("paths-limit")
    defer { sandbox.remove() }
    let host = try Host(root: sandbox.root, readLimit: 64)
    try Data(repeating: UInt8(ascii: "k"), count: 64).write(
      to: sandbox.root.appendingPathComponent("at.txt"))
    try Data(Array("secret".utf8) + Array(repeating: UInt8(ascii: "k"), count: 59)).write(
      to: sandbox.root.appendingPathComponent("over.txt"))
    #expect(try await host.attempt(kind, "read", Array("at.txt".utf8)).result == "ok")
    let (result, _, _) = try await host.attempt(kind, "read", Array("over.txt".utf8))
    #expect(result == "over.txt: it is 65 bytes, more than the 64 a read takes; it was not read")
  }

  @Test(arguments: operations)
  func aPathNoDataPathTakesAnswersAFailureInsideRun(_ operation: String) async throws {
    let sandbox = try PathSandbox("paths-run")
    defer { sandbox.remove() }
    let host = try Host(root: sandbox.root)
    for (name, bytes) in HostilePath.invalid(base: sandbox.base) {
      let (result, errors, _) = try await host.attempt("run", operation, bytes)
      #expect(result == "file.\(operation): path: \(HostilePath.refusal(bytes))", "\(name)")
      #expect(errors.isEmpty, "\(name)")
      #expect(sandbox.neighbours() == PathSandbox.untouched, "\(name)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.root.path) == [])
  }

  /// What the live client answers for each operation on each special file: refused, or (for
  /// what only touches a name in the root, or lists a directory) done. None of it waits.
  static func expectedAnswer(
    _ operation: String, _ special: HostilePath.Special
  ) -> String {
    let path = special.rawValue
    let notRegular = "not a regular file; only regular files are read and written"
    switch (special, operation) {
    case (.symlinkOut, _), (.deviceThroughSymlink, "read"), (.deviceThroughSymlink, "write"),
      (.deviceThroughSymlink, "append"), (.deviceThroughSymlink, "list"),
      (.deviceThroughSymlink, "exists"):
      return "\(path): it leads outside the root (through a symlink)"
    case (.deviceThroughSymlink, "remove"): return "ok"  // the link, in the root
    case (.fifo, "read"), (.fifo, "write"), (.fifo, "append"):
      return "\(path): it is a FIFO (named pipe), \(notRegular)"
    case (.socket, "read"), (.socket, "write"), (.socket, "append"):
      return "\(path): it is a socket, \(notRegular)"
    case (.fifo, "list"), (.socket, "list"): return "\(path): is not a directory"
    case (.directory, "read"), (.directory, "write"), (.directory, "append"):
      return "\(path): is a directory"
    case (.directory, "remove"): return "\(path): Is a directory"
    default: return "ok"  // exists, a listing of the directory, removing a name
    }
  }

  @Test(arguments: ["effect", "run"], operations)
  func whatIsNotARegularFileUnderTheRootIsRefusedWithoutWaiting(
    _ kind: String, _ operation: String
  ) async throws {
    let sandbox = try PathSandbox("paths-special")
    defer { sandbox.remove() }
    let host = try Host(root: sandbox.root)
    for special in HostilePath.Special.allCases {
      try? FileManager.default.removeItem(at: sandbox.root)
      try FileManager.default.createDirectory(at: sandbox.root, withIntermediateDirectories: true)
      try sandbox.make(special)
      let (result, errors, _) = try await host.attempt(
        kind, operation, Array(special.rawValue.utf8))
      #expect(result == Self.expectedAnswer(operation, special), "\(special)")
      #expect(errors.isEmpty, "\(special)")
      #expect(sandbox.neighbours() == PathSandbox.untouched, "\(special)")
    }
  }
}
