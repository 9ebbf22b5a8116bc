import ChildProcesses
import Composable
import Foundation
import LocalServer
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The live HTTP client against a real server on 127.0.0.1 (not a mock).
@Suite struct LiveHTTPClientTests {
  static func server() throws -> LocalHTTPServer {
    try LocalHTTPServer { request in
      switch request.path {
      case "/hello": return .text("hello there")
      case "/echo":
        return LocalHTTPServer.Reply(
          status: 200, headers: ["Content-Type": "application/json"], body: request.body)
      case "/missing": return .text("no such thing", status: 404)
      case "/broken": return .text("oops", status: 500)
      // Longer than any test waits: no reply can arrive however slow the machine is, and a
      // client that hangs up ends the wait at once.
      case "/slow": return .text("finally", delay: 600)
      case "/big": return LocalHTTPServer.Reply(body: Array(repeating: 65, count: 4096))
      case "/huge": return .streamed(length: 200 << 20)
      case "/huge-declared": return .streamed(length: 200 << 20, declaringIt: true)
      case "/huge-small": return .streamed(length: 3 << 20)
      case "/moved": return LocalHTTPServer.Reply(status: 302, headers: ["Location": "/hello"])
      default: return .text("?", status: 400)
      }
    }
  }


  @Test func aGetReturnsStatusHeadersAndBody() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let response = try await HTTPClient.live().perform(HTTPRequest(url: server.url + "/hello"))
    #expect(response.status == 200)
    #expect(String(decoding: response.body, as: UTF8.self) == "hello there")
    #expect(response.headers.first { $0.key.lowercased() == "content-type" }?.value == "text/plain")
  }

  @Test func aJSONBodyGoesAndComesBack() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let json = Array(#"{"todos":[],"meta":{}}"#.utf8)
    let response = try await HTTPClient.live().perform(HTTPRequest(
      method: "POST", url: server.url + "/echo", headers: ["Content-Type": "application/json"],
      body: json))
    #expect(response.body == json)
    // The server logs requests on its connection's thread: wait for the entry, then check it.
    let logged = Date().addingTimeInterval(60)
    while server.received.isEmpty, Date() < logged { try await Task.sleep(for: .milliseconds(5)) }
    #expect(server.received.last?.method == "POST")
    #expect(server.received.last?.headers["content-type"] == "application/json")
  }

  /// A request that fails after a redirect names where the redirect led: the failure named the
  /// first URL, which had answered.
  @Test func aFailureAfterARedirectNamesWhereItLed() async throws {
    let server = try LocalHTTPServer { request in
      switch request.path {
      case "/to-nowhere":
        return LocalHTTPServer.Reply(status: 302, headers: ["Location": "http://127.0.0.1:1/x"])
      case "/to-slow": return LocalHTTPServer.Reply(status: 302, headers: ["Location": "/slow"])
      case "/slow": return .text("finally", delay: 600)
      default: return .text("?", status: 400)
      }
    }
    defer { server.stop() }
    let url = server.url + "/to-nowhere"
    #expect(
      await errorMessage { _ = try await HTTPClient.live().perform(HTTPRequest(url: url)) }
        == "GET \(url) (redirected to http://127.0.0.1:1/x): the connection was refused")
    var slow = HTTPRequest(url: server.url + "/to-slow")
    slow.timeout = 0.5
    #expect(
      await errorMessage { _ = try await HTTPClient.live().perform(slow) }
        == "GET \(server.url)/to-slow (redirected to \(server.url)/slow) timed out after 0.5 "
        + "seconds")
  }

  @Test func redirectsAreFollowed() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let response = try await HTTPClient.live().perform(HTTPRequest(url: server.url + "/moved"))
    #expect(response.status == 200)
    #expect(String(decoding: response.body, as: UTF8.self) == "hello there")
    #expect(server.received.map(\.path) == ["/moved", "/hello"])
  }

  /// A POST is followed as a browser follows it (again with its body for 307 and 308, as a GET
  /// without it for 301, 302 and 303); any other method gets the redirect as its answer, where
  /// libcurl sent the method again without its body (a PUT answered 302 was an empty PUT).
  @Test(arguments: [301, 302, 303, 307, 308])
  func redirectsOfARequestWithABody(status: Int) async throws {
    let server = try LocalHTTPServer { request in
      request.path.hasPrefix("/from")
        ? LocalHTTPServer.Reply(status: status, headers: ["Location": "/to"])
        : .text("\(request.method) \(String(decoding: request.body, as: UTF8.self))")
    }
    defer { server.stop() }
    let client = HTTPClient.live()
    func send(_ method: String) async throws -> HTTPResponse {
      var request = HTTPRequest(method: method, url: server.url + "/from")
      request.body = Array("the body".utf8)
      return try await client.perform(request)
    }
    let post = try await send("POST")
    #expect(post.status == 200)
    #expect(
      String(decoding: post.body, as: UTF8.self)
        == (status >= 307 ? "POST the body" : "GET "))
    for method in ["PUT", "PATCH", "DELETE", "GET"] {
      let before = server.received.count
      let answer = try await send(method)
      #expect(answer.status == status, "\(method)")
      #expect(answer.headers["Location"] == "/to", "\(method)")
      #expect(server.received.count == before + 1, "\(method): followed")
    }
  }

  @Test func anEncodableBodyGoesAsJSON() async throws {
    let server = try Self.server()
    defer { server.stop() }
    struct Todo: Codable, Equatable { var title: String; var done: Bool }
    let request = try HTTPRequest.json(url: server.url + "/echo", body: Todo(title: "milk", done: false))
    let response = try await HTTPClient.live().perform(request)
    #expect(try JSONDecoder().decode(Todo.self, from: Data(response.body)) == Todo(title: "milk", done: false))
  }

  @Test func errorStatusesAreResponses() async throws {
    let server = try Self.server()
    defer { server.stop() }
    #expect(try await HTTPClient.live().perform(HTTPRequest(url: server.url + "/missing")).status == 404)
    #expect(try await HTTPClient.live().perform(HTTPRequest(url: server.url + "/broken")).status == 500)
  }

  /// A port held by a socket that is bound and not listening refuses every connection, and no
  /// other server (of this process or another) can take it meanwhile, as it could a port that
  /// a stopped server let go.
  @Test func aRefusedConnectionIsAClearError() async throws {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(socket >= 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
      }
    }
    try #require(bound)
    let url = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/hello"
    #expect(await errorMessage { _ = try await HTTPClient.live().perform(HTTPRequest(url: url)) }
      == "GET \(url): the connection was refused")
  }

  @Test func aTimeoutIsAClearError() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.url + "/slow"
    let started = ContinuousClock.now
    #expect(await errorMessage { _ = try await HTTPClient.live().perform(HTTPRequest(url: url, timeout: 0.3)) }
      == "GET \(url) timed out after 0.3 seconds")
    let elapsed = ContinuousClock.now - started
    #expect(elapsed >= .milliseconds(290))  // the timeout, not an immediate failure
    // The client's own timer, not URLSession's backstop (its message differs), and not an
    // answer: the server never gave one.
    #expect(server.repliesSent == 0)
  }

  /// A timeout that is no number of seconds above 0 is refused at once, as the Lua side refuses
  /// it: to libcurl 0, a negative or NaN would mean no timeout at all.
  @Test(arguments: [-1, 0, Double.nan, Double.infinity])
  func aTimeoutThatIsNoTimeoutIsRefused(_ timeout: Double) async throws {
    let url = "http://127.0.0.1:9/never"
    #expect(
      await errorMessage {
        _ = try await HTTPClient.live().perform(HTTPRequest(url: url, timeout: timeout))
      }
        == "GET \(url): the timeout \(timeout) is not a number of seconds above 0 (at most 1e9)")
  }

  /// A request to `/slow` in flight: started, read by the server (which then takes its time),
  /// and not ended. Cancelled before the server has it, a request has no hang-up to show, so
  /// this waits (under a loaded sanitized suite the server has taken more than 5 s to read one).
  /// Its timeout is longer than any wait here: with the default 30 s, a request the loaded
  /// server read late timed out by itself, and a test cancelled a request already over (no
  /// hang-up came). A request that ended (a connection the loaded machine could not make) is
  /// made again, twice at most, and its outcome is what a failure reports.
  static func requestInFlight(
    to server: LocalHTTPServer, client: HTTPClient
  ) async throws -> Task<HTTPResponse, any Error> {
    var outcomes: [String] = []
    for _ in 0..<3 {
      let ended = Flag()
      let receivedBefore = server.received.count
      let task = Task {
        defer { ended.set() }
        return try await client.perform(HTTPRequest(url: server.url + "/slow", timeout: 900))
      }
      let deadline = Date().addingTimeInterval(50)
      while server.received.count == receivedBefore, !ended.isSet, Date() < deadline {
        try await Task.sleep(for: .milliseconds(10))
      }
      if server.received.count > receivedBefore, !ended.isSet { return task }
      let hangUps = server.clientHangUps
      task.cancel()
      outcomes.append("\(await task.result)")
      // Its connection, if the server took one, is closed before the next attempt counts.
      let closed = Date().addingTimeInterval(5)
      while server.clientHangUps == hangUps, Date() < closed {
        try await Task.sleep(for: .milliseconds(20))
      }
    }
    Issue.record("the server never received the request: \(outcomes)")
    throw CancellationError()
  }

  @Test func cancellingCancelsTheRequest() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let task = try await Self.requestInFlight(to: server, client: HTTPClient.live())
    // (Counted from here: an attempt made again left its own hang-up before.)
    let hangUps = server.clientHangUps
    task.cancel()
    let result = await task.result
    #expect(throws: CancellationError.self) { try result.get() }
    // The server sees the connection closed. (The deadline only keeps a broken client from
    // hanging the suite: the server would not answer before it.)
    let deadline = Date().addingTimeInterval(50)
    while server.clientHangUps == hangUps, Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(server.clientHangUps == hangUps + 1)
  }

  /// A process started while a request is in flight does not inherit its connection: when
  /// the request is cancelled, the server sees the hang-up while that process still lives.
  @Test func aProcessStartedMeanwhileDoesNotHoldTheConnection() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let task = try await Self.requestInFlight(to: server, client: HTTPClient.live())
    // posix_spawn: every socket that is not close-on-exec goes to the child. Nothing else does:
    // another test's pipe held open by the child would hide from that test that its reader went
    // (a run waiting for a SIGPIPE that never came hung the suite 600 s).
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor in openDescriptors(keepingSockets: true) {
      posix_spawn_file_actions_addclose(&actions, descriptor)
    }
    var pid: pid_t = 0
    // It lives longer than the wait below: an inherited connection would show as no hang-up.
    let words: [String] = ["/bin/sleep", "120"]
    let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    #expect(posix_spawn(&pid, "/bin/sleep", &actions, nil, argv, environ) == 0)
    defer {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
    }
    let hangUps = server.clientHangUps  // (an attempt made again left its own before)
    task.cancel()
    _ = await task.result
    // Long enough for a loaded sanitized suite (a cancel there has taken over 10 s to close).
    let deadline = Date().addingTimeInterval(60)
    while server.clientHangUps == hangUps, Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(server.clientHangUps == hangUps + 1)
  }

  @Test func aBodyOverTheLimitIsAClearError() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.url + "/big"
    #expect(await errorMessage { _ = try await HTTPClient.live(maximumBodySize: 1000).perform(HTTPRequest(url: url)) }
      == "GET \(url): the body of 4096 bytes is over the limit of 1000 bytes")
  }

  /// 200 MB on its way, 1 MB allowed: the client stops taking it once past the limit, so the
  /// server gets only as far as the connection's buffers let it (a client that buffered the
  /// whole body first took all 200 MB).
  @Test func aStreamedBodyIsStoppedOnceItPassesTheLimit() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.url + "/huge"
    let message = await errorMessage {
      _ = try await HTTPClient.live(maximumBodySize: 1 << 20).perform(HTTPRequest(url: url))
    }
    #expect(message?.hasPrefix(
      "GET \(url): the body is over the limit of 1048576 bytes (stopped after ") == true)
    #expect(server.bodyBytesSent < 16 << 20)
  }

  @Test func aDeclaredLengthOverTheLimitIsRefusedBeforeTheBody() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.url + "/huge-declared"
    #expect(await errorMessage {
      _ = try await HTTPClient.live(maximumBodySize: 1 << 20).perform(HTTPRequest(url: url))
    } == "GET \(url): the body of 209715200 bytes is over the limit of 1048576 bytes")
    #expect(server.bodyBytesSent < 16 << 20)
  }

  /// The bodies still arriving count against one budget, each under its own limit (150
  /// requests of 10 MiB at once held 1.5 GB). Four bodies of 1 MiB, held part way, with
  /// 2.5 MiB allowed together: at least two fail, saying why, and the others keep arriving; what
  /// a request held is given back when it ends, so requests after them go through.
  @Test func bodiesStillArrivingShareOneBudget() async throws {
    let server = try LocalHTTPServer { request in
      var reply = LocalHTTPServer.Reply.streamed(length: 1 << 20, declaringIt: true)
      if request.path == "/stall" { reply.stallsAfter = 700 << 10 }
      return reply
    }
    defer { server.stop() }
    let client = HTTPClient.live(maximumBodySize: 1 << 20, maximumBytesInFlight: 5 << 19)
    let failures = Messages()
    let tasks = (0..<4).map { _ in
      Task {
        // A long timeout: on a loaded machine the held ones must not time out before the end.
        var request = HTTPRequest(url: server.url + "/stall")
        request.timeout = 600
        do { _ = try await client.perform(request) } catch {
          if !(error is CancellationError) { failures.list.withLock { $0.append("\(error)") } }
        }
      }
    }
    let deadline = Date().addingTimeInterval(120)
    // Slept as a task: a blocked thread of the pool (two, on two cores) kept the requests'
    // own tasks from running.
    while failures.list.withLock({ $0.count }) < 2, Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    try await Task.sleep(for: .milliseconds(300))  // time for a third to fail, if it would
    let failed = failures.list.withLock { $0 }
    for task in tasks { task.cancel() }
    for task in tasks { await task.value }
    #expect((2...3).contains(failed.count), "\(failed)")
    for message in failed {
      #expect(
        message.hasPrefix(
          "GET \(server.url)/stall failed: the bodies of the responses still arriving would hold "
            + "more than 2621440 bytes together, the client's limit (this one was stopped after "),
        "\(message)")
    }
    for _ in 0..<4 {
      let whole = try await client.perform(HTTPRequest(url: server.url + "/whole"))
      #expect(whole.body.count == 1 << 20)
    }
  }

  @Test func aStreamedBodyWithinTheLimitArrivesWhole() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let response = try await HTTPClient.live(maximumBodySize: 3 << 20)
      .perform(HTTPRequest(url: server.url + "/huge-small"))
    #expect(response.body.count == 3 << 20)
    #expect(response.body.allSatisfy { $0 == UInt8(ascii: "x") })
  }

  @Test func cancellingBeforeTheRequestLeavesIsImmediate() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let task = Task { try await HTTPClient.live().perform(HTTPRequest(url: server.url + "/slow")) }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    // Back without the server's reply: it was not waited for.
    #expect(server.repliesSent == 0)
  }

  @Test func aURLThatIsNotHTTPIsRefused() async throws {
    #expect(await errorMessage { _ = try await HTTPClient.live().perform(HTTPRequest(url: "file:///etc/hostname")) }
      == "file:///etc/hostname is not an http or https URL")
  }

  @Test func aMethodOrHeaderThatWouldSplitTheRequestIsRefused() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let url = server.url + "/hello"
    let attempts: [(HTTPRequest, String)] = [
      (HTTPRequest(url: url, headers: ["X-A": "1\r\nX-Injected: 1"]),
       "header X-A: the value holds CR, LF or NUL"),
      (HTTPRequest(url: url, headers: ["X-A\r\nX-B": "1"]),
       #"header name "X-A\r\nX-B" is not an HTTP token"#),
      (HTTPRequest(method: "GET /hello HTTP/1.1\r\nHost: x\r\n\r\nGET", url: url),
       #"method "GET /hello HTTP/1.1\r\nHost: x\r\n\r\nGET" is not an HTTP method"#),
      (HTTPRequest(url: url, headers: ["X-A": "a\0b"]),
       "header X-A: the value holds CR, LF or NUL"),
    ]
    for (request, problem) in attempts {
      #expect(await errorMessage { _ = try await HTTPClient.live().perform(request) }
        == "\(url): \(problem)")
    }
    #expect(server.received.isEmpty)  // nothing reached the wire
    // A good request still goes.
    let response = try await HTTPClient.live().perform(HTTPRequest(url: url, headers: ["X-A": "1"]))
    #expect(response.status == 200)
  }
}

/// A flag set once, read from any thread.
private final class Flag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false
  func set() { lock.withLock { value = true } }
  var isSet: Bool { lock.withLock { value } }

  /// Response heads as servers send them when they do not send them well: the fields the
  /// client gives are what the server sent, however the lines were ended, folded, repeated in
  /// another case or followed by a chunked body's trailers; a head cut short is an error.
  @Test func headersAreWhatTheServerSent() async throws {
    let server = try LocalHTTPServer { request in
      switch request.path {
      case "/lf-only":
        return .raw(
          "HTTP/1.1 200 OK\nX-First: 1\nContent-Type: application/json\nContent-Length: 7\n\n"
            + "{\"a\":1}")
      case "/cases":
        return .raw(
          "HTTP/1.1 200 OK\r\nX-A: one\r\nx-a: two\r\nX-a: three\r\nContent-Length: 0\r\n\r\n")
      case "/folded":
        return .raw(
          "HTTP/1.1 200 OK\r\nX-Long: first\r\n  second\r\nContent-Length: 0\r\n\r\n")
      case "/trailer":
        return .raw(
          "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n"
            + "Trailer: X-Trailer\r\n\r\n2\r\nhi\r\n0\r\nX-Trailer: injected\r\n"
            + "Content-Type: application/json\r\n\r\n")
      case "/latin1":
        return .raw(
          bytes: Array("HTTP/1.1 200 OK\r\nX-Name: caf".utf8) + [0xE9]
            + Array("\r\nContent-Length: 0\r\n\r\n".utf8))
      case "/cut":
        return .raw("HTTP/1.1 200 OK\r\nContent-Ty")
      case "/status-inside":
        return .raw(
          "HTTP/1.1 200 OK\r\nX-Before: 1\r\nHTTP/1.1: 404 Nope\r\nX-After: 2\r\n"
            + "Content-Length: 2\r\n\r\nok")
      case "/only-continue":
        return .raw("HTTP/1.1 100 Continue\r\n\r\n")
      case "/continue":
        return .raw(
          "HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\nHTTP/1.1 200 OK\r\nX-Final: 1\r\n"
            + "Content-Length: 0\r\n\r\n")
      default: return .text("?", status: 400)
      }
    }
    defer { server.stop() }
    let client = HTTPClient.live()
    func headers(_ path: String) async throws -> [String: String] {
      try await client.perform(HTTPRequest(url: server.url + path)).headers
    }
    let lfOnly = try await client.perform(HTTPRequest(url: server.url + "/lf-only"))
    #expect(
      lfOnly.headers == ["X-First": "1", "Content-Type": "application/json", "Content-Length": "7"])
    #expect(String(decoding: lfOnly.body, as: UTF8.self) == #"{"a":1}"#)
    #expect(try await headers("/cases") == ["X-A": "one, two, three", "Content-Length": "0"])
    #expect(try await headers("/folded") == ["X-Long": "first second", "Content-Length": "0"])
    let trailed = try await client.perform(HTTPRequest(url: server.url + "/trailer"))
    #expect(
      trailed.headers == [
        "Content-Type": "text/plain", "Transfer-Encoding": "chunked", "Trailer": "X-Trailer",
      ])
    #expect(String(decoding: trailed.body, as: UTF8.self) == "hi")
    #expect(try await headers("/latin1") == ["X-Name": "café", "Content-Length": "0"])
    // A line starting "HTTP/" inside a head is one of its lines (curl passes it on when it has
    // a colon), no new response: it erased the headers before it.
    let inside = try await client.perform(HTTPRequest(url: server.url + "/status-inside"))
    #expect(inside.status == 200)
    #expect(
      inside.headers == [
        "X-Before": "1", "HTTP/1.1": "404 Nope", "X-After": "2", "Content-Length": "2",
      ])
    #expect(String(decoding: inside.body, as: UTF8.self) == "ok")
    // After a blank line it is: an interim response's headers are not the final one's.
    #expect(try await headers("/continue") == ["X-Final": "1", "Content-Length": "0"])
    // An interim response and no final one ("Received HTTP/0.9 when not allowed").
    do {
      _ = try await client.perform(HTTPRequest(url: server.url + "/only-continue"))
      Issue.record("an interim response alone was taken for the answer")
    } catch {
      #expect(
        "\(error)"
          == "GET \(server.url)/only-continue failed: the connection closed after an interim "
          + "response (1xx), before the final one")
    }
    await #expect(throws: HTTPClientError.self) {
      _ = try await client.perform(HTTPRequest(url: server.url + "/cut"))
    }
    do {
      _ = try await client.perform(HTTPRequest(url: server.url + "/cut"))
    } catch {
      #expect("\(error)".contains("the connection closed before the response's headers ended"))
    }
  }
}

/// Messages collected from tasks.
private final class Messages: Sendable {
  let list = Mutex<[String]>([])
}
