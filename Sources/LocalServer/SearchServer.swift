import Foundation

/// The search example's server: `GET /search?q=words` answers
/// `{ "query": "...", "results": ["..."] }` with the fruits whose names contain the query.
/// A query that starts with `slow` waits `slowDelay` seconds first (to show cancellation), and
/// `fail` answers 500 (to show errors).
public enum SearchServer {
  struct Answer: Encodable {
    let query: String
    let results: [String]
  }

  public static let words = [
    "apple", "apricot", "avocado", "banana", "blackberry", "blueberry", "cherry", "coconut",
    "cranberry", "date", "fig", "grape", "grapefruit", "guava", "kiwi", "lemon", "lime",
    "mango", "melon", "nectarine", "orange", "papaya", "peach", "pear", "pineapple", "plum",
    "pomegranate", "raspberry", "strawberry", "watermelon",
  ]

  public static func start(port: UInt16 = 0, slowDelay: Double = 2) throws -> LocalHTTPServer {
    try LocalHTTPServer(port: port) { request in
      guard let components = URLComponents(string: request.path), components.path == "/search" else {
        return .json(#"{"error": "not found"}"#, status: 404)
      }
      let query = components.queryItems?.first { $0.name == "q" }?.value ?? ""
      if query == "fail" { return .json(#"{"error": "the search failed"}"#, status: 500) }
      let found = words.filter { !query.isEmpty && $0.contains(query.lowercased()) }
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      let body = (try? encoder.encode(Answer(query: query, results: found))) ?? Data()
      let json = String(decoding: body, as: UTF8.self)
      return .json(json, delay: query.hasPrefix("slow") ? slowDelay : 0)
    }
  }
}
