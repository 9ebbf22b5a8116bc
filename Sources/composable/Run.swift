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
    name: .customLong("env"), help: "A value for the feature's env, as NAME=VALUE (repeatable).")
  var environment: [String] = []

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
    var env = LuaTable()
    for entry in environment {
      guard let equals = entry.firstIndex(of: "=") else {
        throw ValidationError("--env \(entry): expected NAME=VALUE")
      }
      env[String(entry[..<equals])] = .string(
        LuaString(String(entry[entry.index(after: equals)...])))
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
    if loaded.persistence != nil {
      try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
      dependencies.files = .live(root: dataDirectory)
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
    let parser = try ActionParser()
    // Ctrl-C or a kill: what is not saved yet (a save waits a second after the last change)
    // is written before the process ends.
    let files = dependencies.files
    let root = dataDirectory
    SignalSaver.install { signalNumber in
      do {
        try loaded.savePending { path, contents in
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

  /// Writes what the feature has not saved yet, saying so when that fails.
  static func savePending(_ feature: LuaFeature, files: FileClient) async {
    do { try await feature.savePending(files: files) } catch { saveFailed(error) }
  }

  static func saveFailed(_ error: any Error) {
    FileHandle.standardError.write(Data("error: the state could not be saved: \(error)\n".utf8))
  }
}

/// Reads an action typed by a person: a bare word, or a Lua table evaluated in a sandbox.
struct ActionParser {
  let vm: LuaVM
  let sandbox: LuaSandbox

  init() throws {
    vm = try LuaVM(limits: LuaLimits(memory: 8 << 20, instructions: 100_000))
    sandbox = try vm.makeSandbox(.init(print: { _ in }))
  }

  func action(from text: String) throws -> LuaValue {
    if text.isLuaWord { return .string(LuaString(text)) }
    do {
      return try vm.evaluate("return " + text, chunkName: "input", in: sandbox).first ?? .nil
    } catch {
      // Lua's own words, which may not say where ("C stack overflow" for a table nested past
      // what its parser takes), after what was being read.
      throw ValidationError("the line is not an action (a word, or a Lua table): \(error.message)")
    }
  }
}

extension String {
  /// Letters, digits and `_`, not starting with a digit: a shorthand action name.
  var isLuaWord: Bool {
    guard let first = unicodeScalars.first, !CharacterSet.decimalDigits.contains(first) else {
      return false
    }
    return unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "_" }
  }
}

/// Runs `body` on a thread of its own when SIGINT or SIGTERM arrives. The handler only writes
/// the signal's number to a pipe (what a handler may do); the thread reads it and does the
/// work. A handler is installed whatever the disposition was: a shell that starts a command in
/// the background has it ignore SIGINT, and a dispatch source would then never hear of it.
enum SignalSaver {
  /// The pipe's write end, set once before any handler can run.
  nonisolated(unsafe) static var writeEnd: Int32 = -1

  static func install(_ body: @escaping @Sendable (Int32) -> Void) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return }
    writeEnd = ends[1]
    let readEnd = ends[0]
    Thread {
      var number: UInt8 = 0
      while read(readEnd, &number, 1) != 1 {}
      body(Int32(number))
    }.start()
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { signalNumber in
      var number = UInt8(truncatingIfNeeded: signalNumber)
      _ = write(SignalSaver.writeEnd, &number, 1)
    }
    sigemptyset(&action.sa_mask)
    for signalNumber in [SIGINT, SIGTERM] { sigaction(signalNumber, &action, nil) }
  }
}
