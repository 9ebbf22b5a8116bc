import Foundation

/// A `lua5.4` process that runs named jobs on request: the Lua a user runs, with its C modules
/// (lua-cjson), which cannot load into this process (its Lua is linked in statically and
/// exports no symbols for a module to bind to). Each call writes `NAME N` and waits for the
/// job to answer, so the caller times it on its own clock, alternating with its own side.
final class PlainLuaWorker {
  private let child: ChildProcess
  /// What the setup printed, its one line (after `ready`).
  let greeting: String

  /// Starts `lua5.4` on `setup`, a chunk that returns a table of jobs, each `function(n)`, and
  /// may return a second value to print once it is ready.
  init(setup: String) throws {
    let loop = """
      local jobs, greeting = (function() \(setup) end)()
      io.write("ready ", tostring(greeting or ""), "\\n") io.flush()
      for line in io.lines() do
        local name, n = line:match("^(%S+) (%d+)$")
        jobs[name](tonumber(n))
        io.write("done\\n") io.flush()
      end
      """
    child = try ChildProcess.spawn(["/usr/bin/lua5.4", "-e", loop], readingOutput: true)
    let first = child.read(through: "\n")
    guard first.hasPrefix("ready ") else {
      _ = child.finish()
      throw BenchmarkError(
        "lua5.4 did not start the jobs (is lua-cjson installed? run "
          + "scripts/install-deps)")
    }
    greeting = String(first.dropFirst("ready ".count).dropLast())
  }

  deinit { _ = child.finish() }

  /// Runs job `name` with `n` and waits for it.
  func run(_ name: String, _ n: Int) throws {
    let request = Array("\(name) \(n)\n".utf8)
    guard write(child.input, request, request.count) == request.count,
      child.read(through: "\n") == "done\n"
    else { throw BenchmarkError("lua5.4 failed job \(name)") }
  }
}
