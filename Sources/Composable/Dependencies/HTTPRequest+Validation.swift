extension HTTPRequest {
  /// Why the request cannot go on the wire as it is, or nil when it can: a method or header name
  /// that is not an HTTP token, a URL with a space or a control character, a header that frames
  /// the message or the connection, or a header value with CR, LF or NUL. Written as is, a CR/LF
  /// would end the line early and start a header, or a second request, of the caller's making
  /// (request splitting). Every client checks before it sends.
  public var wireProblem: String? {
    if !Self.isToken(method) { return "method \(Self.quoted(method)) is not an HTTP method" }
    // A NUL ended the URL there (what was sent was not what the messages named), and a space
    // or a control character is no part of a URL: percent-encoded, they are. The C1 controls
    // (U+0080-U+009F) too, as a path refuses them: a terminal may obey one in a message.
    if url.utf8.contains(where: { $0 <= 32 || $0 == 127 })
      || url.unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) })
    {
      return "URL \(Self.quoted(url)) holds a space or a control character; percent-encode it "
        + "(%20 for a space)"
    }
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
      if !Self.isToken(name) { return "header name \(Self.quoted(name)) is not an HTTP token" }
      // Where the message ends and what the connection does are the client's: a
      // Content-Length of the caller's shorter than the body made its rest a second request
      // on the connection, and every answer after it went to the request before.
      if Self.clientHeaders.contains(name.lowercased()) {
        return "header \(name) is set by the client (it frames the message or the connection); "
          + "remove it"
      }
      if value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
        return "header \(name): the value holds CR, LF or NUL"
      }
    }
    return nil
  }

  /// Headers that frame the message or manage the connection (RFC 9112's and RFC 9110's
  /// hop-by-hop fields), lower-cased: the client sets them, a request may not.
  static let clientHeaders: Set<String> = [
    "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te",
    "trailer", "proxy-connection",
  ]

  /// RFC 9110's token: letters, digits and ``!#$%&'*+-.^_`|~``, at least one.
  static func isToken(_ text: String) -> Bool {
    !text.isEmpty
      && text.utf8.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"):
          return true
        default:
          return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
      }
  }

  /// Text in a message, with its control characters shown.
  static func quoted(_ text: String) -> String {
    "\"" + text.unicodeScalars.map { $0.escaped(asASCII: false) }.joined() + "\""
  }
}
