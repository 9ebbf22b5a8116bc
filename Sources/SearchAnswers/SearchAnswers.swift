import Foundation

/// What the search example's server answers, shared by the demo server (`search-server`) and
/// the tests' fixture server: `GET /search?q=words` gives `{ "query": "...", "results": [...] }`
/// with the fruits whose names contain the query. A query that starts with `slow` is answered
/// late (to show cancellation), and `fail` with a 500 (to show errors).
public enum SearchAnswers {
  public struct Answer: Sendable {
    public let status: Int
    public let json: String
    /// Whether the answer waits first: the query starts with `slow`.
    public let isSlow: Bool
  }

  public static let words = [
    "apple", "apricot", "avocado", "banana", "blackberry", "blueberry", "cherry", "coconut",
    "cranberry", "date", "fig", "grape", "grapefruit", "guava", "kiwi", "lemon", "lime",
    "mango", "melon", "nectarine", "orange", "papaya", "peach", "pear", "pineapple", "plum",
    "pomegranate", "raspberry", "strawberry", "watermelon",
  ]

  private struct Results: Encodable {
    let query: String
    let results: [String]
  }

  public static func answer(to query: String) -> Answer {
    if query == "fail" {
      return Answer(status: 500, json: #"{"error": "the search failed"}"#, isSlow: false)
    }
    let found = words.filter { !query.isEmpty && $0.contains(query.lowercased()) }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let body = (try? encoder.encode(Results(query: query, results: found))) ?? Data()
    return Answer(
      status: 200, json: String(decoding: body, as: UTF8.self), isSlow: query.hasPrefix("slow"))
  }
}
