import Clocks
import Composable
import ComposableLua
import LocalServer
import LuaKit
import TestSupport
import Testing

/// The search example against the real search server on 127.0.0.1, through the live HTTP
/// client; the debounce runs on a test clock.
@Suite struct SearchExampleTests {
  func makeStore(
    _ server: LocalHTTPServer, clock: TestClock<Duration>,
    timeout: Double = HTTPRequest.defaultTimeout
  ) throws -> TestStore<LuaValue, LuaValue> {
    try Self.makeStore(searchURL: server.url + "/search", clock: clock, timeout: timeout)
  }

  /// The search feature against `searchURL`, through the live HTTP client (requests time out
  /// after `timeout` seconds), on `clock`.
  static func makeStore(
    searchURL: String, clock: TestClock<Duration>,
    timeout: Double = HTTPRequest.defaultTimeout
  ) throws -> TestStore<LuaValue, LuaValue> {
    try TestStore(
      feature: example("search/search.lua"), env: ["search_url": .string(LuaString(searchURL))]
    ) {
      $0.clock = clock
      $0.http = .live(timeout: timeout)
    }
  }

  @Test func searchesOnceTheTypingPauses() async throws {
    let server = try SearchServer.start()
    defer { server.stop() }
    let clock = TestClock()
    let store = try makeStore(server, clock: clock)
    await store.send(["type": "query_changed", "query": "b"]) {
      $0.query = "b"
      $0.searching = true
    }
    await clock.advance(by: .milliseconds(100))
    await store.send(["type": "query_changed", "query": "be"]) { $0.query = "be" }
    await store.send(["type": "query_changed", "query": "berry"]) { $0.query = "berry" }
    await clock.advance(by: .milliseconds(300))
    await store.receive(where: { $0.type == "results_received" }, timeout: .seconds(120)) {
      $0.searching = false
      $0.results = ["blackberry", "blueberry", "cranberry", "raspberry", "strawberry"]
    }
    #expect(server.received.map(\.path) == ["/search?q=berry"])  // one request, for the last query
  }

  @Test func aNewQueryCancelsTheRequestInFlight() async throws {
    // Only the next query may end the slow request, so neither the server's delay nor the
    // client's timeout may run out first, however loaded the machine (the sanitized suite once
    // took over 30 seconds from sending the request to the next query, and the client's default
    // timeout answered first). Ten minutes each: the server thread ends at the hang-up, not
    // after its delay.
    let server = try SearchServer.start(slowDelay: 600)
    defer { server.stop() }
    let clock = TestClock()
    let store = try makeStore(server, clock: clock, timeout: 600)
    await store.send(["type": "query_changed", "query": "slow"]) {
      $0.query = "slow"
      $0.searching = true
    }
    await clock.advance(by: .milliseconds(300))
    // The slow request is in flight; wait until the server has it.
    let deadline = ContinuousClock.now + .seconds(300)
    while server.received.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    await store.send(["type": "query_changed", "query": "lime"]) { $0.query = "lime" }
    await clock.advance(by: .milliseconds(300))
    await store.receive(where: { $0.type == "results_received" }, timeout: .seconds(300)) {
      $0.searching = false
      $0.results = ["lime"]
    }
    let hangUps = ContinuousClock.now + .seconds(300)
    while server.clientHangUps == 0, ContinuousClock.now < hangUps { try await Task.sleep(for: .milliseconds(10)) }
    #expect(server.clientHangUps == 1)  // the slow request's connection was closed
    await store.finish()
  }

  @Test func aFailingSearchPutsTheErrorInTheState() async throws {
    let server = try SearchServer.start()
    defer { server.stop() }
    let clock = TestClock()
    let store = try makeStore(server, clock: clock)
    await store.send(["type": "query_changed", "query": "fail"]) {
      $0.query = "fail"
      $0.searching = true
    }
    await clock.advance(by: .milliseconds(300))
    await store.receive(where: { $0.type == "results_received" }, timeout: .seconds(120)) {
      $0.searching = false
      $0.error = "HTTP 500"
    }
  }

  @Test func clearingTheQueryClearsTheResults() async throws {
    let server = try SearchServer.start()
    defer { server.stop() }
    let clock = TestClock()
    let store = try makeStore(server, clock: clock)
    await store.send(["type": "query_changed", "query": "fig"]) {
      $0.query = "fig"
      $0.searching = true
    }
    await store.send(["type": "query_changed", "query": ""]) {
      $0.query = ""
      $0.searching = false
    }
    await clock.advance(by: .seconds(1))
    await store.finish()
    #expect(server.received.isEmpty)
  }
}
