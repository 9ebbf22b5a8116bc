import Foundation
import LuaKit

/// A session as a Lua TestStore test (`:test NAME_test.lua`): each action sent with the change
/// it made as Lua assignments, each action an effect sent back received, `advance` for the
/// time between, and what the network and the files answered served from the recording.
enum LuaTestWriter {
  /// With a `probe`, the test ends after the steps by printing the effects still running, each
  /// on a line starting with `probe`, after a line `probe` + their count (see
  /// `SessionTestPlan.effectsInFlight`): a run of it, not a test to keep.
  static func text(
    _ plan: SessionTestPlan, name: String, probe: String? = nil
  ) throws(LuaError) -> String {
    let module = plan.feature.deletingPathExtension().lastPathComponent
    var lines = [
      "-- Written by composable's :test from a REPL session on "
        + "\(LuaComment.line(plan.feature.lastPathComponent)).",
      "-- Each action is sent with the change it made, each action an effect sent back is",
      "-- received, and the time between is advanced; what env, the network and the files",
      "-- answered is served from the recording.",
      "local TestStore = require(\"composable.test\").TestStore",
      "",
    ]
    var storeFields = ["      feature = \(quoted(module)),"]
    storeFields.append("      state = \(try LuaAssignments.literal(plan.initialState, indent: 6)),")
    if let env = plan.env.tableValue, !env.isEmpty {
      storeFields.append("      env = \(try LuaAssignments.literal(plan.env, indent: 6)),")
    }
    if !plan.draws.isEmpty || !plan.effectDraws.isEmpty {
      var answers = LuaTable()
      for (name, values) in SessionTestPlan.answers(plan.draws) {
        answers[.string(LuaString(name))] = .table(LuaTable(array: values))
      }
      var effects = LuaTable()
      for (step, draws) in plan.effectDraws {
        var lists = LuaTable()
        for (name, values) in SessionTestPlan.answers(draws) {
          lists[.string(LuaString(name))] = .table(LuaTable(array: values))
        }
        effects[.integer(step)] = .table(lists)
      }
      if !effects.isEmpty { answers["effects"] = .table(effects) }
      // What env.uuid(), env.now() and env.random() answered, in order: the reducer, and under
      // effects[N], the effects that the Nth action sent or received started.
      storeFields.append(
        "      answers = \(try LuaAssignments.literal(.table(answers), indent: 6)),")
    }
    let http = plan.httpExchanges
    if !http.isEmpty {
      let responses = http.map { exchange, delay -> LuaValue in
        var table = exchange.answer.tableValue ?? LuaTable()
        table["method"] = exchange.request.method
        table["url"] = exchange.request.url
        // What the request sent, when it sent something: requests told apart by it too.
        if case let .string(sent) = exchange.request.body, !sent.bytes.isEmpty {
          table["request_body"] = exchange.request.body
        }
        if let error = exchange.error { table["error"] = .string(LuaString(error)) }
        if exchange.cancelled {
          table["delay"] = .number(.infinity)
        } else if delay > 0 {
          table["delay"] = .number(Double(delay) / 1_000_000_000)
        }
        return .table(table)
      }
      lines.append(
        "-- The HTTP requests effects made, in order, and what came back (request_body: what a "
          + "request sent).")
      if http.contains(where: \.exchange.cancelled) {
        lines += [
          "-- delay = 1/0 (math.huge): its effect was cancelled before the answer came, which",
          "-- it never took; the request stays in flight until the test cancels the effect too.",
        ]
      }
      lines += [
        "local responses = \(try LuaAssignments.literal(.table(LuaTable(array: responses)), indent: 0))",
        "",
        "local function http(request)",
        "  for i, response in ipairs(responses) do",
        "    if response.method == request.method and response.url == request.url",
        "      and (response.request_body or \"\") == request.body then",
        "      table.remove(responses, i)",
        "      response.request_body = nil",
        "      if response.error then error(response.error, 0) end",
        "      return response",
        "    end",
        "  end",
        "  error(\"the session made no more \" .. request.method .. \" \" .. request.url .. \" requests\", 0)",
        "end",
        "",
      ]
      storeFields.append("      http = http,")
    }
    let fileAnswers = plan.fileAnswers
    if !fileAnswers.isEmpty {
      let answers = fileAnswers.map { exchange -> LuaValue in
        var table = LuaTable()
        table["operation"] = exchange.request.operation
        table["path"] = exchange.request.path
        table["result"] = exchange.answer
        if let error = exchange.error { table["error"] = .string(LuaString(error)) }
        return .table(table)
      }
      lines += [
        "-- The file operations effects made whose answers matter, in order.",
        "local file_answers = \(try LuaAssignments.literal(.table(LuaTable(array: answers)), indent: 0))",
        "",
        "-- What the test wrote, read back as a disk would (a save reads its file before it",
        "-- writes it again); false: removed.",
        "local written = {}",
        "",
        "local function files(request)",
        "  local operation, path = request.operation, request.path",
        "  local answer",
        "  for i, recorded in ipairs(file_answers) do",
        "    if recorded.operation == operation and recorded.path == path then",
        "      answer = table.remove(file_answers, i)",
        "      break",
        "    end",
        "  end",
        "  if answer and answer.error then error(answer.error, 0) end",
        "  if operation == \"write\" then written[path] = request.contents end",
        "  if operation == \"append\" then written[path] = (written[path] or \"\") .. request.contents end",
        "  if operation == \"remove\" then written[path] = false end",
        "  if answer then return answer.result end",
        "  if operation == \"read\" then return written[path] or nil end",
        "  if operation == \"exists\" then return written[path] and true or nil end",
        "  if operation == \"list\" then return {} end",
        "  return nil -- a write is taken; a read of a file the session never read finds none",
        "end",
        "",
      ]
      storeFields.append("      files = files,")
    } else if plan.saveDelay != nil {
      storeFields.append("      files = {},")
    }

    lines += [
      "describe(\(quoted(name)), function()",
      "  it(\"replays the session\", function()",
      "    local store = TestStore.new{",
    ]
    lines += storeFields
    lines.append("    }")
    if let probe {
      lines += try plan.body(syntax, stepsOnly: true)
      lines += [
        "    local running = store:effects_in_flight()",
        "    print(\(quoted(probe)) .. #running)",
        "    for _, effect in ipairs(running) do print(\(quoted(probe)) .. effect) end",
        "    store:skip_in_flight_effects()",
        "    store:skip_received_actions()",
      ]
    } else {
      lines += try plan.body(syntax)
    }
    lines += ["  end)", "end)", ""]
    // JSON's null, in a state or an answer, is written `json.null` (LuaAssignments.literal).
    if lines.contains(where: { $0.contains("json.null") }) {
      lines.insert("local json = require(\"composable.json\")", at: 5)
    }
    return lines.joined(separator: "\n")
  }

  /// A Lua TestStore test's statements.
  static let syntax = TestSyntax(
    comment: "--",
    advance: { "store:advance(\(SessionTestPlan.seconds($0)))" },
    literal: { (action) throws(LuaError) in try LuaAssignments.literal(action, indent: 4) },
    changes: { (before, after) throws(LuaError) in
      try LuaAssignments.statements(from: before, to: after, target: "s")
    },
    call: { "store:\($0)(\($1))" },
    open: { "store:\($0)(\($1), function(s)" },
    close: "end)",
    expectFailure: { messages in
      let patterns = messages.map { quoted(pattern(matching: $0)) }
      let argument = patterns.count == 1 ? patterns[0] : "{ \(patterns.joined(separator: ", ")) }"
      return ("expect_failure(\(argument), function()", "end)")
    },
    expectsFailuresInAdvances: true,
    skipInFlightEffects: "store:skip_in_flight_effects()",
    skipReceivedActions: "store:skip_received_actions()",
    finish: "store:finish()")

  /// The Lua pattern that matches `text` where it appears: its magic characters escaped, and
  /// each address in it (`table: 0x55d0c8a4e2a0`, which differs from run to run) any address.
  static func pattern(matching text: String) -> String {
    var pattern = ""
    for piece in SessionTestPlan.splittingAddresses(text) {
      guard let literal = piece else {
        pattern += "0x%x+"
        continue
      }
      for character in literal.unicodeScalars {
        if "^$()%.[]*+-?".unicodeScalars.contains(character) { pattern += "%" }
        pattern.unicodeScalars.append(character)
      }
    }
    return pattern
  }

  /// `text` as a Lua string literal.
  static func quoted(_ text: String) -> String {
    LuaValue.string(LuaString(text)).description(limit: .max)  // Lua source: whole
  }
}
