import Composable
import ComposableLua
import Foundation
import LuaKit

/// The REPL's `:commands`, each listed by `:help`.
extension ReplSession {
  /// The commands and what they do, as `:help` prints them (and completion offers them).
  public static let commands: [(name: String, help: String)] = [
    (":state [path]", "the state, or a part of it (:state todos[1])"),
    ("= expression", "a Lua expression's value; `state` is the state, read-only"),
    (":log", "the actions of the session, numbered; ← marks those effects sent back"),
    (":undo", "back to the state before the last action"),
    (":effects", "the effects running, numbered"),
    (":cancel N", "cancels effect N"),
    (":env", "the feature's env"),
    (":pause", "stops time: timers and debounces wait"),
    (":resume", "lets time run again"),
    (":advance SECONDS", "moves stopped time forward, waking what is due in order"),
    (":reload", "loads the feature's file again, keeping the state"),
    (":help", "this list"),
    (":quit", "leaves (also :q and Ctrl-D)"),
  ]

  func command(_ text: String) async -> Reply {
    let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
    let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
    switch parts[0] {
    case ":quit", ":q": return .quit
    case ":help", ":h":
      let width = Self.commands.map(\.name.count).max() ?? 0
      printer.line(
        Self.commands.map {
          "  " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.help
        }.joined(separator: "\n"))
    case ":state": showState(argument)
    case ":log": showLog()
    case ":undo": await undo()
    case ":effects": await showEffects()
    case ":cancel": await cancel(argument)
    case ":env": printer.line(indentedBlock(env.pretty()))
    case ":advance": await advance(argument)
    case ":pause":
      clock.pause()
      printer.line(
        "  time stopped at \(Seconds.of(clock.now.offset)) s; :advance SECONDS moves it, "
          + ":resume lets it run")
    case ":resume":
      clock.resume()
      printer.line("  time runs")
    case ":reload": await reload()
    default:
      printer.error("\(parts[0]) is no command; :help lists them")
    }
    return .ready
  }

  func showState(_ path: String) {
    guard !path.isEmpty else {
      do throws(LuaFeatureError) {
        printer.line(indentedBlock(try feature.state().pretty()))
      } catch {
        printer.error(error.description)
      }
      return
    }
    evaluate("state" + (path.hasPrefix("[") ? path : "." + path))
  }

  func showLog() {
    let entries = log.all
    guard !entries.isEmpty else { return printer.line("  no actions yet") }
    printer.line(
      entries.map { entry in
        let mark = entry.fromEffect ? "← " : ""
        let failed = entry.failed ? "  (failed, rolled back)" : ""
        return "  \(entry.number) \(mark)\(entry.action)\(failed)"
      }.joined(separator: "\n"))
  }

  func undo() async {
    guard let entry = log.removeLast() else { return printer.line("  nothing to undo") }
    await store.send(.restore(entry.before))
    var text = "  back before \(entry.number) (\(entry.action))"
    if let difference = LuaValue.notationDifference(
      from: entry.after, to: entry.before, colored: printer.colored)
    {
      text += "\n" + printer.indented(difference)
    }
    printer.line(text)
  }

  func showEffects() async {
    let running = await store.runningEffects
    guard !running.isEmpty else { return printer.line("  no effects running") }
    printer.line(
      running.map { effect in
        var text = "  #\(effect.number) "
        text += effectKindName(effect.kind, prefix: "effect.") ?? "effect"
        if let id = effect.ids.last { text += " id \(id)" }
        return text
      }.joined(separator: "\n"))
  }

  func cancel(_ argument: String) async {
    guard let number = Int(argument.drop { $0 == "#" }) else {
      return printer.error(":cancel takes the number :effects shows (:cancel 3)")
    }
    if await store.cancelEffect(number: number) {
      printer.line("  cancelled #\(number)")
    } else {
      printer.error("no effect #\(number) is running; :effects lists them")
    }
  }

  func advance(_ argument: String) async {
    guard let seconds = Double(argument), let duration = Seconds.duration(seconds) else {
      return printer.error(":advance takes \(Seconds.expected) (:advance 0.5)")
    }
    guard await clock.advance(by: duration) else {
      return printer.error("time runs by itself; :pause it first (or start with --paused)")
    }
    await settle()
  }

  /// Loads the feature's file again and swaps the new code in, keeping the state; broken code
  /// is refused and the old code keeps running. (Hot reload calls it on each save.)
  @discardableResult
  public func reload() async -> Bool {
    let printer = self.printer
    let reloaded = HotReload.reload(
      feature, from: file, report: { printer.line($0) }, fail: { printer.error($0) })
    if reloaded, feature.hasMigrate { await store.send(.refresh) }  // what `migrate` changed
    return reloaded
  }

  func indentedBlock(_ text: String) -> String { printer.indented(text) }
}
