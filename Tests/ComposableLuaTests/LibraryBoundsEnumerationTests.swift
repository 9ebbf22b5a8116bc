import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// Every function feature code reaches, called with extreme arguments under a small budget,
/// returns or raises within it: nothing runs on in C past the budget, so no call ends by the
/// time limit (the backstop for work no count sees) and none hangs. The list of functions is
/// pinned: a function the sandbox starts to reach fails this test until it is added here (and
/// given its cases, in lua/bounds/cases.lua, if the generic ones do not reach its loops).
@Suite struct LibraryBoundsEnumerationTests {
  static let budget = 200_000
  static let limits = LuaLimits(memory: 64 << 20, instructions: budget, seconds: 20)
  static let casesFile = repositoryRoot.appendingPathComponent(
    "Tests/ComposableLuaTests/lua/bounds/cases.lua")

  /// What the sandbox reaches, by path (globals, the standard libraries, the host's modules).
  static let reachable: [String] = [
    "assert", "composable.alert", "composable.as_action", "composable.bindings",
    "composable.combine", "composable.confirmation_dialog", "composable.declared_navigation",
    "composable.effect.after",
    "composable.effect.cancel", "composable.effect.cancellable", "composable.effect.concat",
    "composable.effect.debounce", "composable.effect.every", "composable.effect.http",
    "composable.effect.merge", "composable.effect.run", "composable.effect.send",
    "composable.effect.sleep", "composable.effect.throttle", "composable.for_each",
    "composable.if_let", "composable.journal.had_element", "composable.journal.table",
    "composable.journal.was_set", "composable.json.array", "composable.json.decode",
    "composable.json.encode", "composable.map_effect", "composable.navigation",
    "composable.on_change", "composable.persist",
    "composable.pop", "composable.pop_from", "composable.pop_to", "composable.pop_to_root",
    "composable.present", "composable.presents", "composable.push", "composable.scope", "composable.screen",
    "composable.stack", "composable.stack_state", "composable.top", "coroutine.close",
    "coroutine.create", "coroutine.isyieldable", "coroutine.resume", "coroutine.running",
    "coroutine.status", "coroutine.wrap", "coroutine.yield", "error", "getmetatable", "ipairs",
    "load", "math.abs", "math.acos", "math.asin", "math.atan", "math.atan2", "math.ceil",
    "math.cos", "math.cosh", "math.deg", "math.exp", "math.floor", "math.fmod", "math.frexp",
    "math.ldexp", "math.log", "math.log10", "math.max", "math.min", "math.modf", "math.pow",
    "math.rad", "math.sin", "math.sinh", "math.sqrt", "math.tan", "math.tanh", "math.tointeger",
    "math.type", "math.ult", "next", "pairs", "pcall", "print", "rawequal", "rawget", "rawlen",
    "rawset", "require", "select", "setmetatable", "string.byte", "string.char", "string.find",
    "string.format", "string.gmatch", "string.gsub", "string.len", "string.lower", "string.match",
    "string.pack", "string.packsize", "string.rep", "string.reverse", "string.sub", "string.unpack",
    "string.upper", "table.concat", "table.insert", "table.move", "table.pack", "table.remove",
    "table.sort", "table.unpack", "tonumber", "tostring", "type", "utf8.char", "utf8.codepoint",
    "utf8.codes", "utf8.len", "utf8.offset", "warn", "xpcall",
  ]

  /// How a case ended.
  enum Ending: Equatable {
    case returned, raised(String), instructionLimit, memoryLimit, timeLimit
  }

  static func run(_ function: LuaReference, in vm: LuaVM) -> Ending {
    do {
      try vm.call(function, arguments: [])
      return .returned
    } catch .instructionLimit {
      return .instructionLimit
    } catch .memoryLimit {
      return .memoryLimit
    } catch .timeLimit {
      return .timeLimit
    } catch {
      // Without the `cases.lua:LINE:` in front: the place is the case's own.
      let message = error.message
      guard message.hasPrefix("cases.lua:"), let colon = message.dropFirst(10).firstIndex(of: ":")
      else { return .raised(message) }
      return .raised(String(message[colon...].dropFirst(2)))
    }
  }

  /// The cases, and where each ended, run on a thread of their own: a call that never returns
  /// (a loop in C that nothing charges) stops the suite with its name rather than hanging it.
  /// The test awaits the thread rather than blocking one of the few threads async tests share
  /// (a blocked one starved a live HTTP test of the sanitized suite for 50 s).
  static func runAll() async throws -> (functions: [String], endings: [(String, Ending)]) {
    let vm = try LuaVM(limits: limits)
    let sandbox = try ComposableLuaLibrary.featureSandbox(
      in: vm, directory: casesFile.deletingLastPathComponent(), print: { _ in })
    let source = LuaString(bytes: Array(try Data(contentsOf: casesFile)))
    vm.limits = .unlimited
    let made = try vm.evaluate(source, chunkName: "cases.lua", in: sandbox)
    vm.limits = limits
    let table = made.first ?? .nil
    let functions = table.functions.tableValue?.sequence.compactMap(\.stringValue) ?? []
    let cases = table.cases.tableValue?.sequence ?? []
    let current = Current()
    let endings = Endings()
    let handed = HandedOver(vm)  // only the thread uses the VM until it resumes the test
    DispatchQueue.global().asyncAfter(deadline: .now() + 600) {
      if !current.finished {
        fatalError("LibraryBoundsEnumerationTests: \(current.get()) did not return")
      }
    }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let thread = Thread {
        let vm = handed.vm
        for entry in cases {
          guard let name = entry.name.stringValue, case let .function(run) = entry.run else {
            continue
          }
          current.set(name)
          endings.append((name, Self.run(run, in: vm)))
        }
        current.finish()
        continuation.resume()
      }
      thread.stackSize = 16 << 20
      thread.start()
    }
    return (functions, endings.all)
  }

  @Test func everyCallReturnsOrRaisesWithinTheBudget() async throws {
    let (functions, endings) = try await Self.runAll()
    #expect(
      functions == Self.reachable,
      "the functions the sandbox reaches changed: \(functions.map { "\"\($0)\"" })")
    #expect(endings.count > functions.count * 20)
    for (name, ending) in endings {
      #expect(ending != .timeLimit, "\(name) ran past the time limit: work nothing charged")
    }
    let named = Dictionary(endings, uniquingKeysWith: { first, _ in first })
    let expected: [String: Ending] = [
      "table.remove over __len = maxinteger": .instructionLimit,
      "table.insert over __len = maxinteger - 1": .instructionLimit,
      "table.sort over __len = maxinteger": .raised(
        "bad argument #1 to 'sort' (array too big)"),
      "table.sort over __len = 2^30": .instructionLimit,
      "table.concat over __len = maxinteger": .instructionLimit,
      "table.unpack a long range": .raised("too many results to unpack"),
      "table.move an endless range": .raised(
        "bad argument #4 to 'move' (destination wrap around)"),
      "table.move from the bottom": .instructionLimit,
      "table.move backwards over __len": .instructionLimit,
      "string.rep of nothing": .returned,
      "string.rep past the cap": .memoryLimit,
      "string.rep past a string": .raised("resulting string too large"),
      "string.byte of a whole string": .raised(
        "stack overflow (string slice too long)"),
      "string.find plain, n times m": .instructionLimit,
      "string.find exploding pattern": .instructionLimit,
      "utf8.len of a long string, in a loop": .instructionLimit,
      "utf8.offset far": .returned,
      "utf8.codepoint of a whole string": .raised(
        "stack overflow (string slice too long)"),
      "utf8.codes over continuation bytes": .instructionLimit,
      "tonumber of a long numeral, in a loop": .instructionLimit,
      "load of a long chunk": .instructionLimit,
      "load from an endless reader": .instructionLimit,
      "string.pack of a long format, in a loop": .instructionLimit,
      "string.unpack of a long format, in a loop": .instructionLimit,
      "string.packsize of a long format, in a loop": .instructionLimit,
      "xpcall with an endless handler": .instructionLimit,
      "coroutine.wrap with an endless __close": .instructionLimit,
      "pcall around an endless loop": .instructionLimit,
      "a coroutine around an endless loop": .instructionLimit,
      "json.encode of a wide table": .instructionLimit,
    ]
    for (name, ending) in expected {
      #expect(named[name] == ending, "\(name) ended as \(String(describing: named[name]))")
    }
  }
}

/// The case running now, for the message when one hangs.
private final class Current: @unchecked Sendable {
  private let lock = NSLock()
  private var name = "(none yet)"
  private var done = false
  func set(_ new: String) { lock.withLock { name = new } }
  func get() -> String { lock.withLock { name } }
  func finish() { lock.withLock { done = true } }
  var finished: Bool { lock.withLock { done } }
}

private final class Endings: @unchecked Sendable {
  private let lock = NSLock()
  private var list: [(String, LibraryBoundsEnumerationTests.Ending)] = []
  func append(_ ending: (String, LibraryBoundsEnumerationTests.Ending)) {
    lock.withLock { list.append(ending) }
  }
  var all: [(String, LibraryBoundsEnumerationTests.Ending)] { lock.withLock { list } }
}

/// The VM, handed to the thread that runs the cases: the test waits for it before going on.
private final class HandedOver: @unchecked Sendable {
  let vm: LuaVM
  init(_ vm: LuaVM) { self.vm = vm }
}
