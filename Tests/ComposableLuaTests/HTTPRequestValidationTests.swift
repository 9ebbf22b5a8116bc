import Composable
import ComposableLua
import LuaKit
import Testing

/// A request a feature builds with CR or LF in its method or headers never reaches a client: the
/// action that returned it fails, naming the field (request splitting is not a typo the wire
/// should see).
@Suite struct HTTPRequestValidationTests {
  @Test func aHeaderWithCRLFFailsAsAnActionAndIsNeverSent() async throws {
    let sent = Locked(0)
    let store = try testStore("""
      local effect = require("composable.effect")
      return {
        initial_state = function() return {} end,
        reduce = function(state, action)
          if action.type == "go" then
            return effect.http{ url = "http://x.test/", headers = { ["X-A"] = "1\\r\\nX-B: 2" },
              response = "done" }
          elseif action.type == "done" then state.error = action.error end
        end,
      }
      """) {
      $0.http = HTTPClient { _ in
        sent.withLock { $0 += 1 }
        return HTTPResponse(status: 200)
      }
    }
    // Checked when the reducer returns it, as a misspelt field is: the action fails.
    await withKnownIssue {
      await store.send("go")
    } matching: { issue in
      "\(issue)".contains(
        "effect.request: effect.http: header X-A: the value holds CR, LF or NUL")
    }
    #expect(sent.withLock { $0 } == 0)
  }

  /// A body with no JSON form fails the action that returned it, naming the field, as json.encode
  /// says it; nothing is sent.
  @Test func aBodyWithNoJSONFormFailsTheAction() async throws {
    let sent = Locked(0)
    let store = try testStore("""
      local effect = require("composable.effect")
      return {
        initial_state = function() return { n = 0 } end,
        reduce = function(state, action)
          state.n = state.n + 1
          return effect.http{ url = "http://x.test/", body = { bad = 0/0 }, response = "done" }
        end,
      }
      """) {
      $0.http = HTTPClient { _ in
        sent.withLock { $0 += 1 }
        return HTTPResponse(status: 200)
      }
    }
    await withKnownIssue {
      await store.send("go")
    } matching: { issue in
      "\(issue)".contains("effect.request.body: effect.http: cannot be sent as JSON: ")
        && "\(issue)".contains("NaN")
    }
    #expect(sent.withLock { $0 } == 0)
  }
}
