import CurlSupport
import Foundation

extension HTTPClient {
  /// Requests over the network with libcurl (HTTP and HTTPS, redirects followed, compressed
  /// bodies decoded). Cancelling the effect's task cancels the request and closes its
  /// connection. Every failure is an error with a clear message, never a crash: a refused
  /// connection, a timeout, a body over `maximumBodySize` bytes. A status outside 200...299 is a
  /// response, not an error: the feature decides what it means.
  ///
  /// The body is taken as it arrives and the transfer stopped the moment it passes the limit (at
  /// once when the server declares a length over it), so a huge body costs at most the limit in
  /// memory; and the bodies of all the requests still arriving at once at most
  /// `maximumBytesInFlight` together (a request whose body would pass it fails, saying so).
  /// Each client has its own connections and no cookies or cache.
  public static func live(
    maximumBodySize: Int = 10 << 20, maximumBytesInFlight: Int = 256 << 20,
    timeout: Double = HTTPRequest.defaultTimeout
  ) -> HTTPClient {
    // Made at the first request: libcurl is opened then, not when the process starts.
    let lazyTransport = LazyLiveHTTPTransport(
      maximumBodySize: maximumBodySize, maximumBytesInFlight: maximumBytesInFlight)
    return HTTPClient { request in
      guard let url = URL(string: request.url),
        ["http", "https"].contains(url.scheme?.lowercased())
      else {
        throw HTTPClientError("\(request.url) is not an http or https URL")
      }
      if let problem = request.wireProblem {
        throw HTTPClientError("\(request.url): \(problem)")
      }
      let seconds = request.timeout ?? timeout
      // A timeout of 0 or less, NaN or infinity would mean none at all to libcurl: refused, as
      // the Lua side refuses it, rather than waiting on a server for ever.
      guard seconds.isFinite, seconds > 0, seconds <= 1e9 else {
        throw HTTPClientError(
          "\(request.method) \(request.url): the timeout \(seconds) is not a number of seconds "
            + "above 0 (at most 1e9)")
      }
      guard let transport = lazyTransport.transport else {
        throw HTTPClientError("\(request.method) \(request.url) failed: libcurl did not start")
      }
      let response = try await transport.perform(request, timeout: seconds)
      let failed =
        "\(request.method) \(request.url)"
        + (response.redirectedTo.map { " (redirected to \($0))" } ?? "")
      switch response.outcome {
      case .completed:
        return HTTPResponse(
          status: response.status, headers: response.headers, body: response.body)
      case .cancelled:
        throw CancellationError()
      case let .overLimit(declaredLength, received):
        let size = declaredLength.map { "of \($0) bytes " } ?? ""
        let stopped = declaredLength == nil ? " (stopped after \(received) bytes)" : ""
        throw HTTPClientError(
          "\(failed): the body \(size)is over the limit of \(maximumBodySize) bytes\(stopped)")
      case .timedOut:
        throw HTTPClientError("\(failed) timed out after \(seconds) seconds")
      case .refused:
        throw HTTPClientError("\(failed): the connection was refused")
      case let .failed(message):
        throw HTTPClientError("\(failed) failed: \(message)")
      }
    }
  }
}
