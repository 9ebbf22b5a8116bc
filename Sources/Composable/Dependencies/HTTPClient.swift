import Foundation
import IssueReporting

/// An HTTP request, as effects describe it.
public struct HTTPRequest: Equatable, Sendable {
  public var method: String
  public var url: String
  public var headers: [String: String]
  public var body: [UInt8]?
  /// Seconds before the request gives up; nil for the client's default.
  public var timeout: Double?

  public init(
    method: String = "GET", url: String, headers: [String: String] = [:], body: [UInt8]? = nil,
    timeout: Double? = nil
  ) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
    self.timeout = timeout
  }
}

extension HTTPRequest {
  /// A request whose body is `body` as JSON, with the content type that says so.
  public static func json<Body: Encodable>(
    method: String = "POST", url: String, body: Body, headers: [String: String] = [:]
  ) throws -> HTTPRequest {
    var headers = headers
    headers["Content-Type"] = "application/json"
    return HTTPRequest(
      method: method, url: url, headers: headers, body: Array(try JSONEncoder().encode(body)))
  }
}

/// An HTTP response: any status, as the server sent it.
public struct HTTPResponse: Equatable, Sendable {
  public var status: Int
  public var headers: [String: String]
  public var body: [UInt8]

  public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  public init(status: Int, headers: [String: String] = [:], text: String) {
    self.init(status: status, headers: headers, body: Array(text.utf8))
  }
}

public struct HTTPClientError: Error, Equatable, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }

  /// `request` gave up after `seconds`: the live client's words, which a test's fake uses too.
  public static func timedOut(_ request: HTTPRequest, after seconds: Double) -> Self {
    Self("\(request.method) \(request.url) timed out after \(seconds) seconds")
  }
}

extension HTTPRequest {
  /// The seconds a request waits when it names none (`timeout`), live or in a test's fake.
  public static let defaultTimeout: Double = 30
}

/// Performs HTTP requests for effects: over the network live (`HTTPClient.live()`), with
/// answers the test gives in tests.
public struct HTTPClient: Sendable {
  public var perform: @Sendable (HTTPRequest) async throws -> HTTPResponse

  public init(perform: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
    self.perform = perform
  }
}

extension HTTPClient: DependencyKey {
  public static let liveValue = HTTPClient.live()

  public static let testValue = HTTPClient { request in
    reportIssue(
      """
      A test used "http" without providing it: \(request.method) \(request.url)

      To fix, give the store an HTTP client that answers, for instance with \
      "dependencies: { $0.http = HTTPClient { request in HTTPResponse(status: 200, text: \\"...\\") } }".
      """)
    throw HTTPClientError("http is not provided in this test")
  }
}

extension DependencyValues {
  public var http: HTTPClient {
    get { self[HTTPClient.self] }
    set { self[HTTPClient.self] = newValue }
  }
}
