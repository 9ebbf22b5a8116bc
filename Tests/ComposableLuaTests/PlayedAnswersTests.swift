import ComposableLua
import Foundation
import TestSupport
import Testing

/// What `env` answers from a TestStore's `answers` (or a session's draws) is what the function
/// could have answered itself; anything else fails the action, naming the answer and the call.
@Suite struct PlayedAnswersTests {
  static let feature = """
    return {
      initial_state = function() return {} end,
      reduce = function(state, action, env)
        if action.type == "uuid" then state.got = env.uuid()
        elseif action.type == "now" then state.got = env.now()
        elseif action.type == "unit" then state.got = env.random()
        elseif action.type == "roll" then state.got = env.random(1, 6)
        end
      end,
    }
    """

  func failures(answers: String, action: String, got: String) async throws -> [String] {
    let directory = try makeTemporaryDirectory("answers")
    defer { try? FileManager.default.removeItem(at: directory) }
    try Self.feature.write(
      to: directory.appendingPathComponent("draws.lua"), atomically: true, encoding: .utf8)
    let source = """
      local TestStore = require("composable.test").TestStore
      it("draws", function()
        local store = TestStore.new{ feature = "draws", answers = \(answers) }
        store:send("\(action)", function(state) state.got = \(got) end)
      end)
      """
    let results = await LuaTestRunner().run(
      source: source, name: "draws_test.lua", directory: directory)
    guard case let .failed(messages) = results.first?.outcome else { return [] }
    return messages
  }

  @Test(arguments: [
    ("{ uuid = { {} } }", "uuid", "env.uuid() was answered {}", "env.uuid() answers a string"),
    ("{ now = { \"x\" } }", "now", #"env.now() was answered "x""#, "a finite number of seconds"),
    ("{ random = { 7 } }", "unit", "env.random() was answered 7", "a float from 0 up to 1"),
    ("{ random = { 0.5 } }", "roll", "env.random() was answered 0.5", "an integer from 1 to 6"),
    ("{ random = { 7 } }", "roll", "env.random() was answered 7", "an integer from 1 to 6"),
  ])
  func anAnswerTheCallCouldNotHaveHadFailsTheAction(
    answers: String, action: String, answered: String, instead: String
  ) async throws {
    let messages = try await failures(answers: answers, action: action, got: "nil")
    let message = try #require(messages.first)
    #expect(message.contains(answered), "\(messages)")
    #expect(message.contains(instead), "\(messages)")
    #expect(message.contains("To fix, correct that answer"), "\(messages)")
  }

  @Test(arguments: [
    ("{ uuid = { \"id-1\" } }", "uuid", "\"id-1\""), ("{ now = { 1.5 } }", "now", "1.5"),
    ("{ random = { 0.25 } }", "unit", "0.25"), ("{ random = { 6 } }", "roll", "6"),
  ])
  func anAnswerTheCallCouldHaveHadIsGiven(answers: String, action: String, got: String)
    async throws
  {
    #expect(try await failures(answers: answers, action: action, got: got) == [])
  }
}
