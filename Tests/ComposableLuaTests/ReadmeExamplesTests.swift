import Clocks
import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// The README's examples, run: the Swift TestStore over a Lua feature (the block below is the
/// README's, word for word, which the first test checks), and the walk-through of "Your first
/// feature", command by command, with the output the README shows.
@Suite struct ReadmeExamplesTests {
  static let readme = (try? String(
    contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

  /// The fenced blocks of the README's section `title`, with their languages, in order.
  static func blocks(under title: String) -> [(language: String, text: String)] {
    guard let start = readme.range(of: "\n" + title + "\n") else { return [] }
    let rest = readme[start.upperBound...]
    let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
    var blocks: [(String, String)] = []
    var lines = section.split(separator: "\n", omittingEmptySubsequences: false)[...]
    while let fence = lines.firstIndex(where: { $0.hasPrefix("```") && $0.count > 3 }) {
      let language = String(lines[fence].dropFirst(3))
      let body = lines[(fence + 1)...]
      guard let end = body.firstIndex(of: "```") else { break }
      blocks.append((language, body[..<end].joined(separator: "\n")))
      lines = lines[(end + 1)...]
    }
    return blocks
  }

  /// The navigation tour's blocks are pieces of examples/syncups, word for word: the tour
  /// cannot drift from the code its tests run.
  @Test func theSyncUpsTourQuotesTheExample() throws {
    let blocks = Self.blocks(under: "### Navigation, step by step: SyncUps")
      .filter { $0.language == "lua" }
    #expect(blocks.count >= 6)
    let folder = repositoryRoot.appendingPathComponent("examples/syncups")
    let sources = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { $0.hasSuffix(".lua") }
      .map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
    for block in blocks {
      #expect(sources.contains { $0.contains(block.text) }, "not in examples/syncups:\n\(block.text)")
    }
  }

  @Test func theSwiftExampleIsThisTest() throws {
    let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    let example = try #require(
      Self.blocks(under: "### Testing a Lua feature from Swift").first { $0.language == "swift" })
    let indented = example.text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n")
    #expect(source.contains(indented), "the README's Swift example is not the one run here")
  }

  @Test func theSwiftExampleRuns() async throws {
    try await withDirectory {
    let clock = ManualClock()
    let store = try TestStore(feature: "examples/todos/todos.lua") {
      $0.clock = clock  // the dependencies: clock, uuid, date, files, http, random
      $0.uuid = .incrementing
      $0.files = .inMemory()
    }
    let milk: LuaValue = "00000000-0000-0000-0000-000000000000"
    await store.send(["type": "add", "title": "milk"]) {
      $0.todos = [["id": milk, "title": "milk", "done": false]]
    }
    await store.send(["type": "todo", "id": milk, "action": "toggled"]) {
      $0.todos[1].done = true  // Lua's indices, 1-based, on the Swift side too
      // A field named like a member of LuaValue (description, typeName...) is reached by its
      // key: $0.todos[1]["description"] = "Milk"
    }
    await clock.advance(by: .seconds(1))
    await store.receive("sort")  // a bare type, as send takes one
    await clock.advance(by: .seconds(1))  // the save persist scheduled after the sort
    await store.finish()
    }
  }

  /// The feature of "Writing a feature in Lua" loads and runs; the test of "Testing a Lua
  /// feature in Lua" passes against the counter example.
  @Test func theLuaExamplesRun() async throws {
    let feature = try #require(
      Self.blocks(under: "## Writing a feature in Lua").first { $0.language == "lua" })
    let store = try testStore(feature.text) {
      $0.clock = TestClock()
      $0.date = .constant(Date(timeIntervalSince1970: 100))
    }
    await store.send("increment") { $0.count = 1 }
    await store.send("remind_me")
    await store.skipInFlightEffects()
    let test = try #require(
      Self.blocks(under: "### Testing a Lua feature in Lua").first { $0.language == "lua" })
    let directory = try makeTemporaryDirectory("readme")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.copyItem(
      at: repositoryRoot.appendingPathComponent("examples/counter/counter.lua"),
      to: directory.appendingPathComponent("counter.lua"))
    let file = directory.appendingPathComponent("readme_test.lua")
    try test.text.write(to: file, atomically: true, encoding: .utf8)
    let results = await LuaTestRunner().run(file: file)
    #expect(results.map(\.outcome) == [.passed])
  }

  /// Runs `body` with the repository as the working directory, where the README's paths are.
  func withDirectory(_ body: () async throws -> Void) async throws {
    let previous = FileManager.default.currentDirectoryPath
    _ = FileManager.default.changeCurrentDirectoryPath(repositoryRoot.path)
    defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
    try await body()
  }

  /// "Your first feature": each `sh` block after the first is run in a fresh directory with
  /// the built `composable` on the PATH, and prints the `text` block that follows it.
  @Test func theFirstFeatureWalkThroughPrintsWhatItSays() throws {
    let blocks = Self.blocks(under: "## Your first feature")
    let steps = blocks.indices.compactMap { index -> (String, String)? in
      guard blocks[index].language == "sh", index + 1 < blocks.count,
        blocks[index + 1].language == "text"
      else { return nil }
      return (blocks[index].text, blocks[index + 1].text)
    }
    #expect(steps.count == 2)
    let directory = try makeTemporaryDirectory("walkthrough")
    defer { try? FileManager.default.removeItem(at: directory) }
    let binaries = try builtProduct("composable").deletingLastPathComponent().path
    for (commands, expected) in steps {
      let shell = Process()
      shell.executableURL = URL(fileURLWithPath: "/bin/sh")
      shell.arguments = ["-e", "-c", commands]
      shell.currentDirectoryURL = directory
      var environment = ProcessInfo.processInfo.environment
      environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
      environment["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
      shell.environment = environment
      let output = Pipe()
      shell.standardOutput = output
      shell.standardInput = FileHandle.nullDevice
      try shell.run()
      let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      shell.waitUntilExit()
      #expect(shell.terminationStatus == 0, "\(commands)")
      // `composable new` speaks first; the README shows what follows it.
      #expect(printed.hasSuffix(expected + "\n"), "\(commands) printed:\n\(printed)")
    }
  }
}
