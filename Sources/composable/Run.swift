import ArgumentParser
import Composable
import ComposableLua
import Foundation
import LuaKit

/// `composable run FEATURE.lua`: runs a feature in a Store and reads actions, one per line.
///
/// A line is an action: a bare word (`increment`) or a Lua table
/// (`{ type = "add", amount = 3 }`). Each action, and each action an effect sends back, is
/// printed with the diff of the state it led to. At the end of the input the command waits for
/// running effects (up to `--wait` seconds) so their actions are printed too.
struct Run: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run", abstract: "Run a Lua feature, reading actions line by line.")

  @Argument(help: "The feature script.")
  var feature: String

  @Option(help: "Seconds to wait for running effects when the input ends.")
  var wait: Double = 5

  func validate() throws {
    guard Seconds.duration(wait) != nil else {
      throw ValidationError("--wait: expected \(Seconds.expected), got \(wait)")
    }
  }

  @Option(
    name: .customLong("env"),
    help: """
      A value for the feature's env, as NAME=VALUE (repeatable). VALUE is a Lua literal \
      (debug=false, n=3, tags={"a"}) or else plain text (name=ada).
      """)
  var environment: [String] = []

  @Option(
    help:
      "UUIDs from env.uuid(): live (random) or incrementing (00000000-...-000000000000, then ...001)."
  )
  var uuid: UUIDKind = .live

  @Option(help: "Seed env.random() so a session can be repeated (default: seeded by the system).")
  var seed: UInt64?

  enum UUIDKind: String, ExpressibleByArgument, CaseIterable { case live, incrementing }

  @Option(help: "Where the feature's files are kept (default: ~/.local/share/composable/NAME).")
  var data: String?

  /// `--data`, or the XDG data directory for this feature.
  var dataDirectory: URL {
    if let data { return URL(fileURLWithPath: data) }
    let base =
      ProcessInfo.processInfo.environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
      ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
    let name = URL(fileURLWithPath: feature).deletingPathExtension().lastPathComponent
    return base.appendingPathComponent("composable").appendingPathComponent(name)
  }

  func run() async throws {
    let reader = try LuaLiteralReader()
    var env = LuaTable()
    for entry in environment {
      guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
        throw ValidationError("--env \(entry): expected NAME=VALUE")
      }
      env[String(entry[..<equals])] = reader.envValue(
        from: String(entry[entry.index(after: equals)...]))
    }
    let loaded: LuaFeature
    do {
      loaded = try LuaFeature(contentsOf: URL(fileURLWithPath: feature), env: .table(env))
    } catch {
      // The feature is broken, not the command line: its error, without the usage text, and
      // the exit code of a failure (64 says the arguments were wrong).
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode.failure
    }
    var dependencies = DependencyValues.live
    if uuid == .incrementing { dependencies.uuid = .incrementing }
    if let seed { dependencies.random = RandomSource(seed: seed) }
    // Every feature has its files, under its data directory, made when it first writes.
    dependencies.files = Self.files(under: dataDirectory)
    if loaded.persistence != nil {
      let restored = try await loaded.restorePersisted(files: dependencies.files) { message in
        FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
      }
      if case .saved = restored { print("Restored from \(dataDirectory.path).") }
    }
    let initial = try loaded.state()
    print("\(loaded.file) loaded. State: \(initial)")
    print("Type actions, one per line: a word (increment) or a table ({ type = \"add\", n = 1 }).")
    fflush(nil)
    let reducer = LuaFeatureReducer<LuaValue>(
      feature: loaded, dependencies: dependencies,
      readState: { (feature) throws(LuaFeatureError) in try feature.state() },
      onError: { error in FileHandle.standardError.write(Data("error: \(error)\n".utf8)) }
    ).printChanges(
      to: ChangePrinter(colored: Terminal.wantsColour(FileHandle.standardOutput)) { text in
        // Flushed each time, also into a pipe: whoever reads the session sees each action as it
        // happens (an effect's too), not when a buffer fills.
        print(text)
        fflush(nil)
      })
    let store = Store(initialState: initial, reducer: reducer)
    let parser = reader
    // Ctrl-C or a kill: what is not saved yet (a save waits a second after the last change)
    // is written before the process ends.
    let files = dependencies.files
    let root = dataDirectory
    SignalSaver.install { signalNumber in
      do {
        try loaded.savePending { path, contents in
          try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
          try FileClient.writeNow(path, contents, under: root)
        }
      } catch {
        Self.saveFailed(error)
      }
      Glibc.exit(128 + signalNumber)
    }
    while let line = readLine() {
      let text = line.trimmingCharacters(in: .whitespaces)
      if text.isEmpty { continue }
      if text == ":quit" || text == ":q" { break }
      do {
        await store.send(try parser.action(from: text))
      } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      }
    }
    let deadline = ContinuousClock.now + (Seconds.duration(wait) ?? .zero)
    while await store.runningEffectCount > 0, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(20))
    }
    await Self.savePending(loaded, files: files)
  }

  /// The live files under `root`, which is made on the first write or append: a feature that
  /// never writes leaves no directory behind.
  static func files(under root: URL) -> FileClient {
    let live = FileClient.live(root: root)
    var client = live
    let makeRoot: @Sendable () throws -> Void = {
      try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }
    client.write = { path, contents in
      try makeRoot()
      try await live.write(path, contents)
    }
    client.append = { path, contents in
      try makeRoot()
      try await live.append(path, contents)
    }
    return client
  }

  /// Writes what the feature has not saved yet, saying so when that fails.
  static func savePending(_ feature: LuaFeature, files: FileClient) async {
    do { try await feature.savePending(files: files) } catch { saveFailed(error) }
  }

  static func saveFailed(_ error: any Error) {
    FileHandle.standardError.write(Data("error: the state could not be saved: \(error)\n".utf8))
  }
}
