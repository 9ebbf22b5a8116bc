import Foundation
import SearchAnswers

/// The search example's answers (`SearchAnswers`) on the fixture server, so a test can see the
/// requests it got and the connections clients closed.
public enum SearchServer {
  public static func start(port: UInt16 = 0, slowDelay: Double = 2) throws -> LocalHTTPServer {
    try LocalHTTPServer(port: port) { request in
      guard let components = URLComponents(string: request.path), components.path == "/search"
      else {
        return .json(#"{"error": "not found"}"#, status: 404)
      }
      let query = components.queryItems?.first { $0.name == "q" }?.value ?? ""
      let answer = SearchAnswers.answer(to: query)
      return .json(answer.json, status: answer.status, delay: answer.isSlow ? slowDelay : 0)
    }
  }
}
