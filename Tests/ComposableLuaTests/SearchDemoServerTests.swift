import Clocks
import Composable
import ComposableLua
import Foundation
import LuaKit
import TestSupport
import Testing

/// `search-server`, the demo server a person starts to try the search example, as they start
/// it: the built executable, on a free port, with the search feature talking to it over HTTP.
@Suite struct SearchDemoServerTests {
  /// Starts `search-server --port 0 ARGUMENTS` and returns it with the URL it printed.
  static func start(_ arguments: [String] = []) throws -> (Process, String) {
    let process = Process()
    process.executableURL = try builtProduct("search-server")
    process.arguments = ["--port", "0"] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Never a server left behind: whatever happens, it is gone within half an hour. (Five
    // minutes was too short: the sanitized suite on a loaded machine took 379 seconds to get
    // through the test, and the server was killed under it. The test's own `defer` ends it.)
    let pid = process.processIdentifier
    DispatchQueue.global().asyncAfter(deadline: .now() + 1800) { kill(pid, SIGKILL) }
    let printed = output.read(until: "\n")
    let url = try #require(
      printed.firstMatch(of: /http:\/\/127\.0\.0\.1:[0-9]+/).map { String($0.output) },
      "the server printed no address: \(printed)")
    return (process, url)
  }

  @Test func theSearchFeatureFindsFruitsThroughTheDemoServer() async throws {
    let (server, url) = try Self.start()
    defer { server.terminate() }
    let clock = TestClock()
    let store = try SearchExampleTests.makeStore(searchURL: url + "/search", clock: clock)
    await store.send(["type": "query_changed", "query": "berry"]) {
      $0.query = "berry"
      $0.searching = true
    }
    await clock.advance(by: .milliseconds(300))
    await store.receive(where: { $0.type == "results_received" }, timeout: .seconds(120)) {
      $0.searching = false
      $0.results = ["blackberry", "blueberry", "cranberry", "raspberry", "strawberry"]
    }
    let failed = try await HTTPClient.live().perform(HTTPRequest(url: url + "/search?q=fail"))
    #expect(failed.status == 500)
  }

  @Test func aSlowDelayThatIsNoNumberOfSecondsIsAUsageError() throws {
    let process = Process()
    process.executableURL = try builtProduct("search-server")
    process.arguments = ["--slow-delay", "nan"]
    let errors = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 64)
    #expect(message.contains("--slow-delay: expected seconds from 0 to 3600, got nan"))
  }
}
