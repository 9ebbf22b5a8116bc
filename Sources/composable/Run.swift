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
    abstract: "Run a Lua feature, reading actions line by line.")

  @Argument(help: "The feature script.")
  var feature: String

  @Option(help: "Seconds to wait for running effects when the input ends.")
  var wait: Double = 5

  func run() async throws {
    let loaded: LuaFeature
    do {
      loaded = try LuaFeature(contentsOf: URL(fileURLWithPath: feature))
    } catch {
      throw ValidationError("\(error)")
    }
    let initial = try loaded.state()
    print("\(loaded.file) loaded. State: \(initial)")
    print("Type actions, one per line: a word (increment) or a table ({ type = \"add\", n = 1 }).")
    let reducer = LuaFeatureReducer<LuaValue>(
      feature: loaded, dependencies: .live,
      readState: { (feature) throws(LuaFeatureError) in try feature.state() },
      onError: { error in FileHandle.standardError.write(Data("error: \(error)\n".utf8)) }
    ).printChanges(to: ChangePrinter { print($0) })
    let store = Store(initialState: initial, reducer: reducer)
    let parser = try ActionParser()
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
    let deadline = ContinuousClock.now + .milliseconds(Int64(wait * 1000))
    while await store.runningEffectCount > 0, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(20))
    }
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
    return try vm.evaluate("return " + text, chunkName: "input", in: sandbox).first ?? .nil
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
