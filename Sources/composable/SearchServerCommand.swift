import ArgumentParser
import Foundation
import LocalServer

/// `composable search-server`: the search example's server, for the demo.
struct SearchServerCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search-server",
    abstract: "Serve the search example's endpoint on 127.0.0.1 (GET /search?q=...).")

  @Option(help: "The port (0: any free one).")
  var port: UInt16 = 8377

  func run() async throws {
    let server = try SearchServer.start(port: port)
    print("Search server on \(server.url)/search?q=... (queries starting with 'slow' wait, 'fail' fails)")
    print("Try: scripts/run run examples/search/search.lua, with env search_url = \(server.url)/search")
    while true { try await Task.sleep(for: .seconds(3600)) }
  }
}
