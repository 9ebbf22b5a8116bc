import ComposableLua
import Foundation
import LuaKit
import SeededRandom
import TestSupport
import Testing

/// Feature code sees what plain Lua gives: generated programs (the table library, patterns,
/// library functions given the wrong things, strings, numbers, `load`) run under `lua5.4`, in
/// the feature sandbox, and inside a feature's `reduce` on state tables, and print the same,
/// line for line. `DIFFERENTIAL_SEED=n` tries other programs; a failure prints the programs
/// that differ with what each side printed.
@Suite struct LuaDifferentialTests {
  static let programCount = 1500
  static let seed = UInt64(ProcessInfo.processInfo.environment["DIFFERENTIAL_SEED"] ?? "") ?? 27
  static let prelude = repositoryRoot.appendingPathComponent(
    "Tests/ComposableLuaTests/lua/differential/prelude.lua")

  static let programs: [String] = {
    var generator = DifferentialPrograms(seed: seed)
    return (0..<programCount).map { _ in generator.program() }
  }()

  /// The programs as one chunk: `case(n, function() ... end)` each.
  static var cases: String {
    programs.enumerated().map { "case(\($0.offset + 1), function()\n\($0.element)\nend)" }
      .joined(separator: "\n")
  }

  /// What each program printed, by its number.
  static func outputs(_ lines: [String]) -> [Int: [String]] {
    var result: [Int: [String]] = [:]
    var current = 0
    for line in lines {
      if line.hasPrefix("## "), let n = Int(line.dropFirst(3)) {
        current = n
        result[n] = []
      } else {
        result[current, default: []].append(line)
      }
    }
    return result
  }

  static func plain() throws -> [Int: [String]] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "differential-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("driver.lua")
    let programs = directory.appendingPathComponent("programs.lua")
    try Data(cases.utf8).write(to: programs)
    // The programs load as a chunk named as the sandbox names it, so messages read the same.
    let driver = """
      string.dump = nil  -- the sandbox has none, on purpose
      S = function(t) return t end
      local function read(path)
        local file = assert(io.open(path, "rb"))
        local text = file:read("a")
        file:close()
        return text
      end
      assert(load(read(\(LuaValue.string(LuaString(prelude.path)).description)), "=prelude"))(print)
      assert(load(read(\(LuaValue.string(LuaString(programs.path)).description)), "@programs"))()
      """
    try Data(driver.utf8).write(to: file)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["lua5.4", file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return outputs(String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init))
  }

  static let limits = LuaLimits(memory: 512 << 20, instructions: 2_000_000_000, seconds: 120)

  static func sandbox() throws -> [Int: [String]] {
    var lines: [String] = []
    let vm = try LuaVM(limits: limits)
    let sandbox = try ComposableLuaLibrary.featureSandbox(
      in: vm, directory: nil, print: { lines.append($0) })
    try vm.evaluate("S = function(t) return t end", in: sandbox)
    try vm.call(
      try vm.load(LuaString(bytes: Array(try Data(contentsOf: prelude))), chunkName: "prelude", in: sandbox),
      .function(vm.function(named: "report") { arguments in
        guard case let .string(line)? = arguments.first else { return [] }
        lines.append(String(decoding: line.bytes, as: UTF8.self))
        return []
      }))
    try vm.evaluate(cases, chunkName: "programs", in: sandbox)
    return outputs(lines)
  }

  /// Inside `reduce`: each table `S{...}` makes is stored in the state (and taken out again),
  /// which makes it a state table: reads through its proxy, writes journaled.
  static func inState() throws -> [Int: [String]] {
    let lines = Lines()
    let feature = try LuaFeature(
      source: """
        return {
          initial_state = function() return {} end,
          reduce = function(state, action)
            S = function(t) state.made = t; state.made = nil return t end
            assert(load(action.prelude, "=prelude"))(print)
            assert(load(action.cases, "@programs"))()
          end,
        }
        """, file: "differential.lua", limits: limits, print: { lines.append($0) })
    try feature.step(
      [
        "type": "run", "prelude": .string(LuaString(bytes: Array(try Data(contentsOf: prelude)))),
        "cases": .string(LuaString(cases)),
      ])
    return outputs(lines.all)
  }

  static func differences(_ expected: [Int: [String]], _ found: [Int: [String]], side: String)
    -> [String]
  {
    (1...programCount).compactMap { n in
      guard expected[n] != found[n] else { return nil }
      return """
        program \(n) (seed \(seed)):
        \(programs[n - 1])
        lua5.4:  \(expected[n]?.joined(separator: "\n         ") ?? "(nothing)")
        \(side): \(found[n]?.joined(separator: "\n         ") ?? "(nothing)")
        """
    }
  }

  @Test func theSandboxPrintsWhatPlainLuaPrints() throws {
    let expected = try Self.plain()
    #expect(expected.count == Self.programCount, "lua5.4 ran every program")
    let differences = Self.differences(expected, try Self.sandbox(), side: "sandbox")
    #expect(differences.isEmpty, "\(differences.count) differ:\n\(differences.prefix(10).joined(separator: "\n"))")
  }

  @Test func stateTablesInReducePrintWhatPlainLuaPrints() throws {
    let expected = try Self.plain()
    let differences = Self.differences(expected, try Self.inState(), side: "state")
    #expect(differences.isEmpty, "\(differences.count) differ:\n\(differences.prefix(10).joined(separator: "\n"))")
  }
}

private final class Lines: @unchecked Sendable {
  private let lock = NSLock()
  private var lines: [String] = []
  func append(_ line: String) { lock.withLock { lines.append(line) } }
  var all: [String] { lock.withLock { lines } }
}
