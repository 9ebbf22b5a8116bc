import CurlSupport
import Foundation

/// The live HTTP client's connection to libcurl: owns a `cs_client` (its thread, its
/// connections) and frees it when the client goes, which cancels what is still running.
final class LiveHTTPTransport: Sendable {
  /// What became of one request.
  struct Response: Sendable {
    enum Outcome: Sendable, Equatable {
      case completed, cancelled, timedOut, refused
      case overLimit(declaredLength: Int?, received: Int)
      case failed(String)
    }
    var outcome: Outcome
    var status = 0
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    /// For a request that did not complete after a redirect: the URL it led to.
    var redirectedTo: String?
  }

  /// The C client: used from any thread (it serializes what it is handed), freed once.
  private nonisolated(unsafe) let client: OpaquePointer

  init?(maximumBodySize: Int, maximumBytesInFlight: Int) {
    guard
      let client = cs_client_new(max(0, maximumBodySize), max(0, maximumBytesInFlight))
    else { return nil }
    self.client = client
  }

  deinit { cs_client_free(client) }

  func perform(_ request: HTTPRequest, timeout seconds: Double) async throws -> Response {
    let pending = PendingTransfer()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        pending.continuation = continuation
        let id = start(request, timeout: seconds, context: Unmanaged.passRetained(pending))
        guard id != 0 else {
          pending.continuation = nil
          continuation.resume(
            throwing: HTTPClientError(
              "\(request.method) \(request.url) failed: the request could not be set up"))
          return
        }
        if pending.started(id) { cs_cancel(client, id) }  // cancelled while it was starting
      }
    } onCancel: {
      if let id = pending.cancel() { cs_cancel(client, id) }
    }
  }

  /// Hands the request to the C client; 0 when it could not. The context is released when the
  /// transfer completes, or here when it never started.
  private func start(
    _ request: HTTPRequest, timeout seconds: Double, context: Unmanaged<PendingTransfer>
  ) -> UInt64 {
    let lines = request.headers.sorted { $0.key < $1.key }.map { name, value in
      value.isEmpty ? "\(name);" : "\(name): \(value)"  // "Name:" alone would remove the header
    }
    let duration = Seconds.duration(seconds) ?? .seconds(Seconds.maximum)
    let milliseconds = Int64(Seconds.of(duration) * 1000)
    let id = withCStrings(lines) { headerPointers in
      request.method.withCString { method in
        request.url.withCString { url in
          withBody(request.body) { body, length in
            var raw = cs_request(
              method: method, url: url, headers: headerPointers.baseAddress,
              header_count: headerPointers.count, body: body, body_length: length,
              timeout_ms: Int(max(1, milliseconds)))
            return cs_start(
              client, &raw,
              { context, response in
                Unmanaged<PendingTransfer>.fromOpaque(context!).takeRetainedValue()
                  .complete(with: response!)
              }, context.toOpaque())
          }
        }
      }
    }
    if id == 0 { context.release() }
    return id
  }
}

/// One request between Swift and the C client: its continuation, and its id once known, so
/// that a cancellation arriving at any moment reaches it.
private final class PendingTransfer: @unchecked Sendable {
  private let lock = NSLock()
  var continuation: CheckedContinuation<LiveHTTPTransport.Response, any Error>?
  private var id: UInt64 = 0
  private var cancelled = false

  /// Records the id; true when a cancellation came first (the caller cancels it now).
  func started(_ id: UInt64) -> Bool {
    lock.withLock {
      self.id = id
      return cancelled
    }
  }

  /// The id to cancel, if the transfer started.
  func cancel() -> UInt64? {
    lock.withLock {
      cancelled = true
      return id == 0 ? nil : id
    }
  }

  /// On the C client's thread: takes the response apart and frees it.
  func complete(with raw: UnsafeMutablePointer<cs_response>) {
    let response = Self.response(from: raw.pointee)
    cs_response_free(raw)
    let continuation = lock.withLock {
      defer { self.continuation = nil }
      return self.continuation
    }
    continuation?.resume(returning: response)
  }

  private static func response(from raw: cs_response) -> LiveHTTPTransport.Response {
    var response = outcome(of: raw)
    response.redirectedTo = raw.redirected_to.map { String(cString: $0) }
    return response
  }

  private static func outcome(of raw: cs_response) -> LiveHTTPTransport.Response {
    switch raw.outcome {
    case CS_CANCELLED: return .init(outcome: .cancelled)
    case CS_OVER_LIMIT:
      return .init(
        outcome: .overLimit(
          declaredLength: raw.declared_length > 0 && raw.received == 0
            ? Int(raw.declared_length) : nil,
          received: raw.received))
    case CS_TIMED_OUT: return .init(outcome: .timedOut)
    case CS_REFUSED: return .init(outcome: .refused)
    case CS_FAILED:
      let message = withUnsafeBytes(of: raw.error) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
      return .init(outcome: .failed(message))
    default:
      var response = LiveHTTPTransport.Response(outcome: .completed, status: raw.status)
      if let body = raw.body {
        response.body = Array(UnsafeBufferPointer(start: body, count: raw.body_length))
      }
      if let headers = raw.headers {
        response.headers = LiveHTTPTransport.headerFields(
          UnsafeRawBufferPointer(start: headers, count: raw.headers_length))
      }
      return response
    }
  }
}

extension LiveHTTPTransport {
  /// The header fields of the header lines `bytes` (`Name: value`, each ended by CRLF or LF
  /// alone, as curl takes them): a line that starts with a space or a tab continues the one
  /// before (obsolete folding); repeated names, in any case, are one field, comma-joined in the
  /// order they came, under the first one's spelling (as HTTP allows; not Set-Cookie, which a
  /// client with no cookies has no use for). A value that is not UTF-8 is read as Latin-1 (the
  /// bytes HTTP allowed in values before it), so no byte is lost.
  static func headerFields(_ bytes: UnsafeRawBufferPointer) -> [String: String] {
    var lines: [[UInt8]] = []
    for var line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
      if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
      guard !line.isEmpty else { continue }
      if let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t"),
        !lines.isEmpty
      {
        lines[lines.count - 1] +=
          [UInt8(ascii: " ")] + line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
      } else {
        lines.append(Array(line))
      }
    }
    var fields: [String: String] = [:]
    var spelling: [String: String] = [:]  // by the name in lower case, the first one's
    for line in lines {
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
      let name = text(line[..<colon])
      let value = text(line[(colon + 1)...]).trimmingCharacters(in: .whitespaces)
      guard !name.isEmpty else { continue }
      let key = spelling[name.lowercased(), default: name]
      spelling[name.lowercased()] = key
      fields[key] = fields[key].map { "\($0), \(value)" } ?? value
    }
    return fields
  }

  /// `bytes` as UTF-8, or as Latin-1 when they are not UTF-8.
  private static func text(_ bytes: ArraySlice<UInt8>) -> String {
    String(validating: bytes, as: UTF8.self)
      ?? String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
  }
}

/// `body` as a pointer and length for C; NULL when there is none or it is empty (C sends an
/// empty body for the methods that carry one).
private func withBody<Result>(
  _ body: [UInt8]?, _ use: (UnsafePointer<UInt8>?, Int) -> Result
) -> Result {
  guard let body, !body.isEmpty else { return use(nil, 0) }
  return body.withUnsafeBufferPointer { use($0.baseAddress, $0.count) }
}

/// `strings` as an array of C strings, alive for the call.
private func withCStrings<Result>(
  _ strings: [String], _ use: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> Result
) -> Result {
  let copies = strings.map { strdup($0) }
  defer { copies.forEach { free($0) } }
  return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer(use)
}

/// A live transport made when first asked for, once: a client that makes no request never opens
/// libcurl or starts its thread.
final class LazyLiveHTTPTransport: @unchecked Sendable {
  private let lock = NSLock()
  private let maximumBodySize: Int
  private let maximumBytesInFlight: Int
  private var made: LiveHTTPTransport??  // under `lock`: nil until asked, then what was made

  init(maximumBodySize: Int, maximumBytesInFlight: Int) {
    self.maximumBodySize = maximumBodySize
    self.maximumBytesInFlight = maximumBytesInFlight
  }

  /// The transport, or nil when libcurl could not be opened or started.
  var transport: LiveHTTPTransport? {
    lock.withLock {
      if let made { return made }
      let transport = LiveHTTPTransport(
        maximumBodySize: maximumBodySize, maximumBytesInFlight: maximumBytesInFlight)
      made = .some(transport)
      return transport
    }
  }
}
