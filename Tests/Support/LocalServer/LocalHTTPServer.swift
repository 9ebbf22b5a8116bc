import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A small real HTTP/1.1 server on 127.0.0.1 for the tests: the live HTTP client and the search
/// example are tested against it. It is the tests' own, not a library's, because it shows what
/// a server library keeps to itself: the requests as they arrived, the connections a client
/// closed before the reply (so a test sees that a cancelled request closed its connection), the
/// replies written to the end, and the body bytes a streamed reply got out before the client
/// stopped taking them. Each connection gets one reply from `handler`, after an optional delay
/// during which it watches for the hang-up; a thread per connection is plenty for tests. (The
/// search demo for people is `search-server`, on FlyingFox.)
public final class LocalHTTPServer: @unchecked Sendable {
  public struct Reply: Sendable {
    public var status = 200
    public var headers: [String: String] = [:]
    public var body: [UInt8] = []
    /// Seconds to wait before answering.
    public var delay: Double = 0
    /// When set, the body is this many bytes of `x`, written as the client reads them, with no
    /// `Content-Length` (the end of the body is the end of the connection), or with one when
    /// `declaresLength`: a body too big to build, and a way to see how much a client took.
    public var streamedLength: Int?
    public var declaresLength = false
    /// When set with `streamedLength`, only this many bytes of the body are written, and the
    /// connection is held open until the client hangs up (or a minute passes): a response
    /// still arriving, for as long as a test needs one.
    public var stallsAfter: Int?
    /// When set, the whole reply, status line to body, written as it is and the connection
    /// closed: what no well-behaved server sends (LF-only lines, folding, half a head).
    public var raw: [UInt8]?

    /// The reply `bytes`, written as they are (see `raw`).
    public static func raw(_ bytes: String) -> Reply {
      var reply = Reply()
      reply.raw = Array(bytes.utf8)
      return reply
    }

    /// The reply `bytes`, written as they are (see `raw`).
    public static func raw(bytes: [UInt8]) -> Reply {
      var reply = Reply()
      reply.raw = bytes
      return reply
    }

    public init(status: Int = 200, headers: [String: String] = [:], body: [UInt8] = [], delay: Double = 0) {
      self.status = status
      self.headers = headers
      self.body = body
      self.delay = delay
    }

    public static func text(_ text: String, status: Int = 200, delay: Double = 0) -> Reply {
      Reply(status: status, headers: ["Content-Type": "text/plain"], body: Array(text.utf8), delay: delay)
    }

    /// `length` bytes streamed (see `streamedLength`).
    public static func streamed(length: Int, declaringIt: Bool = false) -> Reply {
      var reply = Reply()
      reply.streamedLength = length
      reply.declaresLength = declaringIt
      return reply
    }

    public static func json(_ json: String, status: Int = 200, delay: Double = 0) -> Reply {
      Reply(status: status, headers: ["Content-Type": "application/json"], body: Array(json.utf8), delay: delay)
    }
  }

  public struct Request: Sendable {
    public let method: String
    /// The path with its query, as sent: `/search?q=milk`.
    public let path: String
    public let headers: [String: String]
    public let body: [UInt8]
  }

  public let port: UInt16
  private let listener: Int32
  private let handler: @Sendable (Request) -> Reply
  private let lock = NSLock()
  private var hangUps = 0
  private var replies = 0
  private var requests: [Request] = []

  public var url: String { "http://127.0.0.1:\(port)" }

  /// Connections the client closed before the reply was sent.
  public var clientHangUps: Int { lock.withLock { hangUps } }
  /// Replies written to the end (a delayed one only once its delay is over).
  public var repliesSent: Int { lock.withLock { replies } }
  public var received: [Request] { lock.withLock { requests } }
  /// Bytes of body written to clients, all replies together.
  public var bodyBytesSent: Int { lock.withLock { bodyBytes } }
  private var bodyBytes = 0

  /// Listens on 127.0.0.1:`port` (0: any free port; read `port` for the one chosen).
  public init(port: UInt16 = 0, handler: @escaping @Sendable (Request) -> Reply) throws {
    self.handler = handler
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw POSIXError(.EIO) }
    self.listener = listener
    var yes: Int32 = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    self.port = UInt16(bigEndian: address.sin_port)
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  /// Stops accepting. The listening socket is closed by the accepting thread once it is out of
  /// `accept`: closed here, its number could go to another server's socket before this thread
  /// calls `accept` again, which would then take that server's connections.
  public func stop() {
    shutdown(listener, Int32(SHUT_RDWR))  // wakes `accept` with an error
  }

  private func acceptLoop() {
    defer { close(listener) }
    while true {
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else { return }
      Thread { [self] in serve(connection) }.start()
    }
  }

  private func serve(_ connection: Int32) {
    defer { close(connection) }
    guard let request = readRequest(connection) else { return }
    lock.withLock { requests.append(request) }
    let reply = handler(request)
    if reply.delay > 0, !waitWatchingForHangUp(connection, seconds: reply.delay) {
      lock.withLock { hangUps += 1 }
      return
    }
    if let raw = reply.raw {
      if write(raw, to: connection) { lock.withLock { replies += 1 } }
      return
    }
    var head = "HTTP/1.1 \(reply.status) Status\r\nConnection: close\r\n"
    if reply.streamedLength == nil || reply.declaresLength {
      head += "Content-Length: \(reply.streamedLength ?? reply.body.count)\r\n"
    }
    for (name, value) in reply.headers { head += "\(name): \(value)\r\n" }
    head += "\r\n"
    guard write(Array(head.utf8), to: connection) else { return }
    if let length = reply.streamedLength {
      let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
      var left = min(length, reply.stallsAfter ?? length)
      while left > 0 {
        let part = Array(chunk.prefix(left))
        guard write(part, to: connection) else { return }
        left -= part.count
        lock.withLock { bodyBytes += part.count }
      }
      if reply.stallsAfter.map({ $0 < length }) == true {
        _ = waitWatchingForHangUp(connection, seconds: 60)
        lock.withLock { hangUps += 1 }
        return
      }
    } else {
      guard write(reply.body, to: connection) else { return }
      lock.withLock { bodyBytes += reply.body.count }
    }
    lock.withLock { replies += 1 }
  }

  /// Writes all of `bytes`; false when the client has gone.
  private func write(_ bytes: [UInt8], to connection: Int32) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes {
        send(connection, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
      }
      guard written > 0 else { return false }
      offset += written
    }
    return true
  }

  /// Waits, and returns false as soon as the client closes the connection.
  private func waitWatchingForHangUp(_ connection: Int32, seconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
      if poll(&descriptor, 1, 20) > 0 {
        var byte: UInt8 = 0
        if recv(connection, &byte, 1, Int32(MSG_PEEK)) <= 0 { return false }
      }
    }
    return true
  }

  private func readRequest(_ connection: Int32) -> Request? {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    var headerEnd: Int?
    while headerEnd == nil {
      let count = recv(connection, &buffer, buffer.count, 0)
      guard count > 0 else { return nil }
      data += buffer[0..<count]
      headerEnd = data.indices.dropLast(3).first {
        data[$0] == 13 && data[$0 + 1] == 10 && data[$0 + 2] == 13 && data[$0 + 3] == 10
      }
    }
    let head = String(decoding: data[..<headerEnd!], as: UTF8.self).components(separatedBy: "\r\n")
    let requestLine = head[0].split(separator: " ")
    guard requestLine.count >= 2 else { return nil }
    var headers: [String: String] = [:]
    for line in head.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    var body = Array(data[(headerEnd! + 4)...])
    let length = Int(headers["content-length"] ?? "0") ?? 0
    while body.count < length {
      let count = recv(connection, &buffer, buffer.count, 0)
      guard count > 0 else { break }
      body += buffer[0..<count]
    }
    return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body)
  }
}
