import ArgumentParser
import FlyingFox
import Foundation
import SearchAnswers

/// `search-server`: the search example's endpoint on 127.0.0.1, for trying
/// `examples/search/search.lua` by hand. Not part of the `composable` command.
@main
struct SearchServerCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search-server",
    abstract: "Serve the search example's endpoint on 127.0.0.1 (GET /search?q=...).")

  @Option(help: "The port (0: any free one).")
  var port: UInt16 = 8377

  @Option(help: "Seconds a query that starts with 'slow' waits before its answer.")
  var slowDelay: Double = 2

  func validate() throws {
    guard slowDelay.isFinite, (0...3600).contains(slowDelay) else {
      throw ValidationError("--slow-delay: expected seconds from 0 to 3600, got \(slowDelay)")
    }
  }

  func run() async throws {
    let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: port), logger: .disabled)
    let slowDelay = self.slowDelay
    await server.appendRoute("GET /search") { request in
      let answer = SearchAnswers.answer(to: request.query["q"] ?? "")
      if answer.isSlow { try await Task.sleep(for: .seconds(slowDelay)) }
      return HTTPResponse(
        statusCode: HTTPStatusCode(answer.status, phrase: answer.status == 200 ? "OK" : "Error"),
        headers: [.contentType: "application/json"], body: Data(answer.json.utf8))
    }
    let running = Task { try await server.run() }
    try await server.waitUntilListening()
    guard case let .ip4(_, port)? = await server.listeningAddress else {
      throw ValidationError("the server did not say where it listens")
    }
    let url = "http://127.0.0.1:\(port)"
    // Written at once (not buffered): a script or a test reads the address from the first line.
    FileHandle.standardOutput.write(
      Data(
        """
        Search server on \(url)/search?q=... (queries starting with 'slow' wait, 'fail' fails)
        Try: scripts/run run examples/search/search.lua --env search_url=\(url)/search

        """.utf8))
    try await running.value
  }
}
