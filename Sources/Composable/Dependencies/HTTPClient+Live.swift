import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPClient {
  /// Requests over the network with URLSession (FoundationNetworking on Linux: no build cost,
  /// and it follows redirects). Cancelling the effect's task cancels the request. Every failure
  /// is an error with a clear message, never a crash: a refused connection, a timeout, a body
  /// over `maximumBodySize` bytes. A status outside 200...299 is a response, not an error: the
  /// feature decides what it means.
  ///
  /// Each client has its own session (ephemeral: no shared cookies or cache), so requests of one
  /// client never wait for another's connections to 127.0.0.1 or any host.
  public static func live(
    session: URLSession? = nil, maximumBodySize: Int = 10 << 20, timeout: Double = 30
  ) -> HTTPClient {
    let session = session ?? {
      let configuration = URLSessionConfiguration.ephemeral
      configuration.httpMaximumConnectionsPerHost = 64
      return URLSession(configuration: configuration)
    }()
    return HTTPClient { request in
      guard let url = URL(string: request.url), ["http", "https"].contains(url.scheme?.lowercased()) else {
        throw HTTPClientError("\(request.url) is not an http or https URL")
      }
      if let problem = request.wireProblem {
        throw HTTPClientError("\(request.url): \(problem)")
      }
      var urlRequest = URLRequest(url: url)
      urlRequest.httpMethod = request.method
      for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
      if let body = request.body { urlRequest.httpBody = Data(body) }
      let seconds = request.timeout ?? timeout
      // URLSession on Linux counts its timeout in whole seconds (0.3 becomes 0), so the
      // timeout is kept here, precisely, and URLSession's is only a backstop, well after it
      // (and said apart from it in the message).
      urlRequest.timeoutInterval = seconds * 2 + 5
      let prepared = urlRequest
      let data: Data
      let response: URLResponse
      do {
        (data, response) = try await withThrowingTaskGroup(of: (Data, URLResponse).self) { group in
          group.addTask { try await perform(prepared, on: session) }
          group.addTask {
            try await Task.sleep(for: Seconds.duration(seconds) ?? .seconds(Seconds.maximum))
            throw HTTPClientError(
              "\(request.method) \(request.url) timed out after \(seconds) seconds")
          }
          defer { group.cancelAll() }
          return try await group.next()!
        }
      } catch let error as URLError {
        switch error.code {
        case .cancelled: throw CancellationError()
        case .timedOut:
          throw HTTPClientError(
            "\(request.method) \(request.url) timed out (the connection's own limit, "
              + "\(urlRequest.timeoutInterval) seconds)")
        case .cannotConnectToHost:
          throw HTTPClientError("\(request.method) \(request.url): the connection was refused")
        default:
          throw HTTPClientError("\(request.method) \(request.url) failed: \(error.localizedDescription)")
        }
      }
      try Task.checkCancellation()
      guard let http = response as? HTTPURLResponse else {
        throw HTTPClientError("\(request.method) \(request.url): the response is not HTTP")
      }
      guard data.count <= maximumBodySize else {
        throw HTTPClientError(
          "\(request.method) \(request.url): the body of \(data.count) bytes is over the limit of "
            + "\(maximumBodySize) bytes")
      }
      var headers: [String: String] = [:]
      for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String { headers[name] = value }
      }
      return HTTPResponse(status: http.statusCode, headers: headers, body: Array(data))
    }
  }

  /// The request as a data task that a cancellation stops whenever it comes, even before the
  /// task has started (the async `data(for:)` misses that race on Linux).
  private static func perform(
    _ request: URLRequest, on session: URLSession
  ) async throws -> (Data, URLResponse) {
    let box = CancellableDataTask()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let task = session.dataTask(with: request) { data, response, error in
          if let error {
            continuation.resume(throwing: error)
          } else if let response {
            continuation.resume(returning: (data ?? Data(), response))
          } else {
            continuation.resume(throwing: URLError(.badServerResponse))
          }
        }
        box.start(task)
      }
    } onCancel: {
      box.cancel()
    }
  }
}

/// A data task and whether its request was cancelled, whichever happens first.
private final class CancellableDataTask: @unchecked Sendable {
  private let lock = NSLock()
  private var task: URLSessionDataTask?
  private var cancelled = false

  func start(_ task: URLSessionDataTask) {
    let cancelNow = lock.withLock { () -> Bool in
      self.task = task
      return cancelled
    }
    task.resume()
    if cancelNow { task.cancel() }
  }

  func cancel() {
    let task = lock.withLock { () -> URLSessionDataTask? in
      cancelled = true
      return self.task
    }
    task?.cancel()
  }
}
