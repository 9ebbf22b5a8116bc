import ComposableLua
import Foundation
import LuaKit

// lua-conformance: runs Lua 5.4.4's own test files statement by statement under plain
// `lua5.4`, in the feature sandbox, and inside a feature's `reduce` with every table they make
// stored in the state, and prints where the sandbox answers differently from plain Lua.
//
//   swift run lua-conformance [--testes DIR] [--only sandbox|state] [FILE...]
//
// Each file is rewritten so that each top-level statement runs on its own, protected
// (statements.lua), and both sides run the same rewritten text with the same globals (what the
// sandbox gives feature code, plus the stand-ins of harness.lua): a statement that fails for a
// reason the sandbox gives on purpose (no `os`, no `debug`) fails the same way on both. What
// differs is listed; docs/lua-api.md lists what differs on purpose. Exit status 1 when the
// sandbox differs anywhere.

let tools = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let defaultFiles = [
  "pm", "strings", "sort", "nextvar", "utf8", "tpack", "math", "vararg", "closure", "coroutine",
  "events", "constructs", "literals", "goto", "locals", "bitwise", "calls", "errors", "cstack",
]

var arguments = Array(CommandLine.arguments.dropFirst())
var testes = tools.appendingPathComponent("../../../shared/lua-5.4.4-testes").standardizedFileURL
var only: String?
var files: [String] = []
while let argument = arguments.first {
  arguments.removeFirst()
  switch argument {
  case "--testes": testes = URL(fileURLWithPath: arguments.removeFirst())
  case "--only": only = arguments.removeFirst()
  default: files.append(argument.replacingOccurrences(of: ".lua", with: ""))
  }
}
if files.isEmpty { files = defaultFiles }

/// How one statement ended: "ok", or "error MESSAGE".
struct Outcome: Equatable {
  var line: Int
  var result: String
}

/// The `@@ n line result` lines of a run, by statement.
func outcomes(_ lines: [String]) -> [Int: Outcome] {
  var result: [Int: Outcome] = [:]
  for line in lines where line.hasPrefix("@@ ") {
    let parts = line.dropFirst(3).split(separator: " ", maxSplits: 2).map(String.init)
    guard parts.count == 3, let n = Int(parts[0]), let at = Int(parts[1]) else { continue }
    result[n] = Outcome(line: at, result: parts[2])
  }
  return result
}

func runLua(_ arguments: [String]) throws -> (output: String, status: Int32) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["lua5.4"] + arguments
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = FileHandle.standardError
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (String(decoding: data, as: UTF8.self), process.terminationStatus)
}

func readBytes(_ url: URL) throws -> LuaString {
  LuaString(bytes: Array(try Data(contentsOf: url)))
}

let limits = LuaLimits(memory: 2 << 30, instructions: 200_000_000_000, seconds: 600)
let harness = try readBytes(tools.appendingPathComponent("harness.lua"))

/// The rewritten file run in the feature sandbox.
@MainActor func runInSandbox(_ rewritten: LuaString, name: String) -> [String] {
  var lines: [String] = []
  do {
    let vm = try LuaVM(limits: limits)
    let sandbox = try ComposableLuaLibrary.featureSandbox(
      in: vm, directory: testes, print: { lines.append($0) })
    try vm.evaluate(harness, chunkName: "harness", in: sandbox)
    try vm.evaluate(rewritten, chunkName: name, in: sandbox)
  } catch {
    lines.append("@@ 0 0 error \(error)")
  }
  return lines
}

/// The rewritten file (tables stored in the state as they are made) run in a feature's reduce,
/// as one action. A statement that ends the action (past its budget, say) ends the run: the
/// file runs again, as a new action of a new feature, without it.
@MainActor func runInState(_ rewritten: LuaString, name: String) -> [String] {
  var lines: [String] = []
  let feature = """
    return {
      initial_state = function() return {} end,
      reduce = function(state, action)
        assert(load(action.harness, "=harness"))()
        __skip = action.skip
        -- Each table made is stored in the state and taken out again: it stays a state table
        -- (writes journaled, reads through the proxy), and the state does not grow.
        __S = function(t)
          if getmetatable(t) == nil then state.made = t; state.made = nil end
          return t
        end
        assert(load(action.source, "=" .. action.name))()
      end,
    }
    """
  var skip: [Int] = []
  var reported = Set<Int>()
  while true {
    var last = 0
    do {
      let host = try LuaFeature(
        source: feature, file: "conformance.lua", directory: testes,
        limits: LuaLimits(memory: 2 << 30, instructions: 2_000_000_000, seconds: 60),
        print: { line in
          let parts = line.split(separator: " ", maxSplits: 2)
          if parts.count == 3, parts[0] == "@@", let n = Int(parts[1]) {
            last = n
            if !reported.insert(n).inserted { return }  // run again: said already
          }
          lines.append(line)
        })
      let start: LuaValue = [
        "type": "start", "harness": .string(harness), "source": .string(rewritten),
        "name": .string(LuaString(name)),
        "skip": .table(
          LuaTable(
            entries: Dictionary(
              uniqueKeysWithValues: skip.map {
                (LuaValue.integer($0), LuaValue.boolean(true))
              }))),
      ]
      try host.step(start)
      return lines
    } catch {
      // The statement after the last one reported ended the run.
      let failed = last + 1
      guard !skip.contains(failed), skip.count < 50 else {
        lines.append("@@ 0 0 error \(error)")
        return lines
      }
      skip.append(failed)
      lines.append(
        "@@ \(failed) 0 error (ended the action) \(String(describing: error).prefix(200))")
    }
  }
}

var differs = false
for file in files {
  let source = testes.appendingPathComponent(file + ".lua")
  let name = file + ".lua"
  let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
    "conformance-\(getpid())-\(file)")
  try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: scratch) }
  let plainTool = tools.appendingPathComponent("plain.lua").path
  let rewritten = try runLua([plainTool, "transform", source.path]).output
  let rewrittenInState = try runLua([plainTool, "transform", source.path, "state"]).output
  let rewrittenFile = scratch.appendingPathComponent(name)
  try Data(rewritten.utf8).write(to: rewrittenFile)
  let plain = outcomes(
    try runLua([plainTool, "run", rewrittenFile.path, name, testes.path]).output
      .split(separator: "\n").map(String.init))
  var report = "\(name): \(plain.count) statements"
  var sides: [(String, [Int: Outcome])] = []
  // The rewritten text as bytes: a test file may hold bytes that are not UTF-8.
  let rewrittenBytes = try readBytes(rewrittenFile)
  if only != "state" {
    sides.append(("sandbox", outcomes(runInSandbox(rewrittenBytes, name: name))))
  }
  if only != "sandbox" {
    try Data(rewrittenInState.utf8).write(to: rewrittenFile)
    sides.append(("state", outcomes(runInState(try readBytes(rewrittenFile), name: name))))
  }
  var details: [String] = []
  for (side, outcome) in sides {
    var count = 0
    for n in Set(plain.keys).union(outcome.keys).sorted() where plain[n] != outcome[n] {
      count += 1
      if side == "sandbox" { differs = true }
      let line = plain[n]?.line ?? outcome[n]?.line ?? 0
      details.append(
        "  [\(side)] \(name):\(line) (statement \(n))\n"
          + "    lua5.4: \(plain[n]?.result ?? "(did not run)")\n"
          + "    \(side): \(outcome[n]?.result ?? "(did not run)")")
    }
    report += ", \(count) differ in the \(side)"
  }
  print(report)
  for detail in details { print(detail) }
}
exit(differs ? 1 : 0)
