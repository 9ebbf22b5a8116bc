import Foundation
import IssueReporting

/// An HTTP request, as effects describe it.
public struct HTTPRequest: Equatable, Sendable {
  /// The HTTP method, `GET` by default; `wireProblem` checks it is a valid token.
  public var method: String
  /// Where the request goes, as text; the live client takes `http` and `https` URLs only.
  public var url: String
  /// The header fields to send, by name; `wireProblem` checks names and values.
  public var headers: [String: String]
  /// The bytes to send as the body; nil for none.
  public var body: [UInt8]?
  /// Seconds before the request gives up; nil for the client's default.
  public var timeout: Double?

  /// A request; a `GET` with no headers and no body unless told otherwise.
  ///
  /// ```swift
  /// let request = HTTPRequest(
  ///   url: "https://example.com/todos", headers: ["Accept": "application/json"], timeout: 10)
  /// ```
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
  /// A request whose body is `body` as JSON (keys sorted, so that the same value is the same
  /// bytes), with the content type that says so.
  public static func json<Body: Encodable>(
    method: String = "POST", url: String, body: Body, headers: [String: String] = [:]
  ) throws -> HTTPRequest {
    var headers = headers
    headers["Content-Type"] = "application/json"
    return HTTPRequest(
      method: method, url: url, headers: headers,
      body: Array(try JSONEncoder.sortedKeys().encode(body)))
  }
}

/// An HTTP response: any status, as the server sent it.
public struct HTTPResponse: Equatable, Sendable {
  /// The status code, such as 200 or 404.
  public var status: Int
  /// The header fields the server sent, by name.
  public var headers: [String: String]
  /// The body's bytes; empty when there is none.
  public var body: [UInt8]

  /// A response with `body` as bytes.
  ///
  /// ```swift
  /// let noContent = HTTPResponse(status: 204)
  /// ```
  public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A response whose body is the UTF-8 bytes of `text`: the usual answer of a test's fake client.
  ///
  /// ```swift
  /// let client = HTTPClient { _ in HTTPResponse(status: 200, text: #"{"count":3}"#) }
  /// ```
  public init(status: Int, headers: [String: String] = [:], text: String) {
    self.init(status: status, headers: headers, body: Array(text.utf8))
  }
}

/// Why a request got no response: a URL or request that cannot be sent, a refused connection,
/// a timeout, a body over the limit. A response with an error status is not one of these: it
/// is an `HTTPResponse`, for the feature to judge.
public struct HTTPClientError: Error, Equatable, Sendable, CustomStringConvertible {
  public var description: String
  /// An error that says `description`.
  ///
  /// ```swift
  /// throw HTTPClientError("GET \(request.url) failed: the network is down")
  /// ```
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
  /// Sends the request and returns the response, whatever its status; throws when none came.
  public var perform: @Sendable (HTTPRequest) async throws -> HTTPResponse

  /// A client that answers each request with `perform`: a test's fake, or a transport of your
  /// own.
  ///
  /// ```swift
  /// let client = HTTPClient { request in
  ///   request.url.hasSuffix("/health")
  ///     ? HTTPResponse(status: 200, text: "ok")
  ///     : HTTPResponse(status: 404)
  /// }
  /// ```
  public init(perform: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
    self.perform = perform
  }
}

extension HTTPClient: DependencyKey {
  /// `HTTPClient.live()`: libcurl, with its default body limit and timeout.
  public static let liveValue = HTTPClient.live()

  /// A client that reports an issue naming the request and throws, until the test sets `http`.
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
  /// The HTTP client effects use: `HTTPClient.live()` live; one that fails in tests, until the
  /// test sets its own.
  public var http: HTTPClient {
    get { self[HTTPClient.self] }
    set { self[HTTPClient.self] = newValue }
  }
}
