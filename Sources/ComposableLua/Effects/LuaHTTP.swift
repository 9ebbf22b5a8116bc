import Composable
import Foundation
import LuaKit

/// HTTP between Lua and Swift: the request table an effect gives (`url`, `method`, `query`,
/// `headers`, `body`, `timeout`), checked field by field, and the response table a feature
/// gets back (`ok`, `status`, `headers`, `body`, `json`, `error`).
enum LuaHTTP {
  /// The fields `effect.http` takes, in the order messages list them.
  static let requestFields = ["url", "method", "query", "headers", "body", "timeout", "response"]

  /// The request a request table describes; an error names the field that is wrong. A table
  /// `body` goes as the JSON `encodeJSON` makes of it (`json.encode`'s, the feature's codec).
  static func request(
    from value: LuaValue, encodeJSON: (LuaValue) throws(LuaError) -> String
  ) throws(LuaError) -> HTTPRequest {
    guard let table = value.tableValue else {
      throw .conversion(path: "request", message: "expected a request table, got \(value.typeName)")
    }
    let url = try text(table["url"], at: "request.url")
    // Parsed as the live client parses it, so a URL it would refuse fails here, naming the
    // field, rather than later as a response the feature must handle.
    guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased())
    else {
      throw .conversion(
        path: "request.url", message: "\(LuaValue(url)) is not an http or https URL")
    }
    // A field of another type was taken as absent: `method = 5` sent a GET, `headers = "..."`
    // sent none.
    for (field, expected) in [("method", "a string"), ("query", "a table"), ("headers", "a table")]
    {
      let value = table[.string(LuaString(field))]
      let fits: Bool
      switch value {
      case .string: fits = field == "method"
      case .table: fits = field != "method"
      default: fits = false
      }
      guard value == .nil || fits else {
        throw .conversion(
          path: "request.\(field)", message: "expected \(expected), got \(value.typeName)")
      }
    }
    let method = table["method"] == .nil ? "GET" : try text(table["method"], at: "request.method")
    var request = HTTPRequest(method: method, url: url)
    if let query = table["query"].tableValue {
      request.url = try Self.appending(query, to: url)
    }
    if let headers = table["headers"].tableValue {
      for (key, value) in headers.entries {
        guard case .string = key, case .string = value else {
          throw .conversion(
            path: "request.headers", message: "expected strings for names and values")
        }
        let name = try text(key, at: "request.headers")
        request.headers[name] = try text(value, at: "request.headers.\(name)")
      }
    }
    switch table["body"] {
    case .nil: break
    case let .string(body): request.body = body.bytes
    case let .table(body):
      // A table goes as JSON, written as `json.encode` writes it.
      do throws(LuaError) {
        request.body = Array(try encodeJSON(.table(body)).utf8)
      } catch {
        throw .conversion(path: "request.body", message: "cannot be sent as JSON: \(error.message)")
      }
      if !request.headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
        request.headers["Content-Type"] = "application/json"
      }
    case let other:
      throw .conversion(
        path: "request.body", message: "expected a string or a table, got \(other.typeName)")
    }
    if let problem = request.wireProblem {
      throw .conversion(path: "request", message: problem)
    }
    switch table["timeout"] {
    case .nil: break
    case let timeout:
      guard let seconds = timeout.doubleValue, seconds > 0, Seconds.duration(seconds) != nil else {
        throw .conversion(
          path: "request.timeout",
          message:
            "expected \(Seconds.expected), more than 0, got \(LuaValue.describeForMessage(timeout))"
        )
      }
      request.timeout = seconds
    }
    return request
  }

  /// `{ ok, status, headers, body, json }`; `ok` is false for a status outside 200...299 and
  /// for a JSON body that does not parse. `json` is what `decodeJSON` (`json.decode`, the
  /// feature's codec) makes of the body: `null` is `json.null`, `1.0` a float, `[]` a list.
  static func table(
    of response: HTTPResponse, decodeJSON: ([UInt8]) throws(LuaError) -> LuaValue
  ) -> LuaValue {
    var table = LuaTable()
    let success = (200...299).contains(response.status)
    table["ok"] = .boolean(success)
    table["status"] = .integer(response.status)
    var headers = LuaTable()
    for (name, value) in response.headers { headers[name.lowercased()] = .string(LuaString(value)) }
    table["headers"] = .table(headers)
    table["body"] = .string(LuaString(bytes: response.body))
    if !success { table["error"] = .string(LuaString("HTTP \(response.status)")) }
    let contentType = response.headers.first { $0.key.lowercased() == "content-type" }?.value ?? ""
    if contentType.lowercased().contains("json"), !response.body.isEmpty {
      do throws(LuaError) {
        table["json"] = try decodeJSON(response.body)
      } catch {
        // Where and why, in the decoder's words; JSON too deep or too big for the feature is
        // valid all the same.
        let message = error.message
        let reason =
          message.hasPrefix("json.decode: ") ? String(message.dropFirst(13)) : message
        let valid = reason.contains("nested more than") || reason.contains("memory")
        table["ok"] = false
        table["error"] = .string(
          LuaString(
            valid
              ? "the body's JSON could not be decoded: \(reason)"
              : "the body is not valid JSON: \(reason)"))
      }
    }
    return .table(table)
  }

  /// `url` with `query` appended (`query = { q = "two words" }`: `?q=two%20words`, in key
  /// order, after a query the URL has, which is left as written). Names and values go byte for
  /// byte, every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`) percent-encoded: a `+`
  /// or a `&` in a value is itself, and bytes that are not UTF-8 arrive as they are (as Lua
  /// literals, `\255`, they did not). A number is its decimal form, as `tostring` writes it;
  /// NaN and infinities, which have none a server reads, are refused, as a body refuses them.
  static func appending(_ query: LuaTable, to url: String) throws(LuaError) -> String {
    var pairs: [String] = []
    for (key, value) in query.sortedEntries {
      guard case let .string(name) = key else {
        throw .conversion(
          path: "request.query", message: "expected string names, got a \(key.typeName)")
      }
      let text: [UInt8]
      switch value {
      case let .string(string): text = string.bytes
      case let .integer(integer): text = Array(String(integer).utf8)
      case let .boolean(flag): text = Array((flag ? "true" : "false").utf8)
      case let .number(number):
        guard number.isFinite else {
          throw .conversion(
            path: "request.query.\(String(decoding: name.bytes, as: UTF8.self))",
            message: "\(value.description) has no decimal form a server reads; send a finite "
              + "number, or a string")
        }
        text = Array(Self.tostring(number).utf8)
      default:
        throw .conversion(
          path: "request.query.\(name)",
          message: "expected a string or number, got \(value.typeName)")
      }
      pairs.append(percentEncoded(name.bytes) + "=" + percentEncoded(text))
    }
    guard !pairs.isEmpty else { return url }
    // Before a fragment, which is the client's alone.
    let (base, fragment) =
      url.firstIndex(of: "#").map { (String(url[..<$0]), String(url[$0...])) } ?? (url, "")
    let separator =
      !base.contains("?") ? "?" : base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&"
    return base + separator + pairs.joined(separator: "&") + fragment
  }

  /// A float as Lua's `tostring` writes it (`%.14g`, with `.0` after one that reads as an
  /// integer): `0.3` for 0.1 + 0.2, `1e+15`, where the shortest exact form is another text.
  static func tostring(_ number: Double) -> String {
    let text = String(format: "%.14g", number)
    let looksIntegral = text.allSatisfy { $0 == "-" || $0.isASCII && $0.isNumber }
    return looksIntegral ? text + ".0" : text
  }

  /// `bytes` with every byte but `A-Z a-z 0-9 - . _ ~` as `%XX`.
  static func percentEncoded(_ bytes: [UInt8]) -> String {
    var result = ""
    for byte in bytes {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        result.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        result +=
          "%" + String(byte >> 4, radix: 16, uppercase: true)
          + String(byte & 0xF, radix: 16, uppercase: true)
      }
    }
    return result
  }

  /// `value` as text: a string of UTF-8 (what a URL, a method and a header are on the wire);
  /// an error naming `path` for another type, or for bytes that are not UTF-8 (which were taken
  /// as absent: `method = "\255"` sent a GET).
  static func text(_ value: LuaValue, at path: String) throws(LuaError) -> String {
    guard case let .string(string) = value else {
      throw .conversion(path: path, message: "expected a string, got \(value.typeName)")
    }
    if let text = String(validating: string.bytes, as: UTF8.self) { return text }
    let offset = DataPath.firstOffsetNotUTF8(string.bytes)
    throw .conversion(
      path: path,
      message: "\(value) is not UTF-8 text (byte \(offset + 1) is "
        + "\(DataPath.hex(string.bytes[offset])))"
        + (path == "request.url" ? "; percent-encode bytes in a URL (%FF)" : ""))
  }
}
