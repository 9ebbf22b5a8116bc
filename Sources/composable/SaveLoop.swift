import ArgumentParser
import Composable
import Foundation

/// `composable save-loop --root DIR`: saves a state again and again until killed. The crash
/// test kills it at random moments and checks that the file is always a whole state.
struct SaveLoop: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "save-loop", abstract: "Save a state in a loop until killed (for crash tests).",
    shouldDisplay: false)

  @Option(help: "The directory to save into.")
  var root: String

  /// A state big enough that a write takes a while: a kill often lands in the middle.
  struct State: Codable {
    var count: Int
    var check: Int
    var items: [String]
  }

  func run() async throws {
    let files = FileClient.live(root: URL(fileURLWithPath: root))
    var count = 0
    while true {
      count += 1
      let state = State(
        count: count, check: count * 7,
        items: (0..<2000).map { "item \($0) of save \(count)" })
      try await files.write("state.json", Array(try JSONEncoder().encode(state)))
    }
  }
}
