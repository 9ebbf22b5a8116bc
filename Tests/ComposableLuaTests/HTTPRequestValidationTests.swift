import Composable
import ComposableLua
import LuaKit
import Testing

/// A request a feature builds with CR or LF in its method or headers never reaches a client: it
/// fails as an action, naming the field (request splitting is not a typo the wire should see).
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
    await store.send("go")
    await store.receive(where: { $0.type == "done" }) {
      $0.error = "request: header X-A: the value holds CR, LF or NUL"
    }
    #expect(sent.withLock { $0 } == 0)
  }
}
