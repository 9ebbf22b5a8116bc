extension HTTPRequest {
  /// Why the request cannot go on the wire as it is, or nil when it can: a method or header name
  /// that is not an HTTP token, or a header value with CR, LF or NUL. Written as is, a CR/LF
  /// would end the line early and start a header, or a second request, of the caller's making
  /// (request splitting). Every client checks before it sends.
  public var wireProblem: String? {
    if !Self.isToken(method) { return "method \(Self.quoted(method)) is not an HTTP method" }
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
      if !Self.isToken(name) { return "header name \(Self.quoted(name)) is not an HTTP token" }
      if value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
        return "header \(name): the value holds CR, LF or NUL"
      }
    }
    return nil
  }

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
