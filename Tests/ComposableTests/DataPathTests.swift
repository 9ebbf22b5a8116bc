import Composable
import SeededRandom
import Testing

/// `DataPath` takes a path under a root from its bytes and refuses, naming the byte and where,
/// everything that could lead a system call elsewhere or surprise it.
@Suite struct DataPathTests {
  func refusal(_ bytes: [UInt8]) -> String? {
    do {
      let path = try DataPath(validating: bytes)
      Issue.record("\(path) was taken")
      return nil
    } catch {
      return error.description
    }
  }

  /// The example of the issue: the NUL comes after `..`, where a check on the text saw `..`
  /// and a C string was cut at the NUL.
  @Test func aNULIsRefusedWhereverItIs() {
    #expect(
      refusal(Array("..\u{0}/escaped.txt".utf8))
        == #""..\000/escaped.txt": byte 3 is 0x00 (NUL), a control byte; a path holds none"#)
    #expect(
      refusal(Array("\u{0}../escaped.txt".utf8))
        == #""\000../escaped.txt": byte 1 is 0x00 (NUL), a control byte; a path holds none"#)
    #expect(refusal(Array("notes.txt\u{0}".utf8))?.contains("byte 10 is 0x00 (NUL)") == true)
  }

  /// Every control byte, at the start, in the middle and at the end, is refused and named.
  @Test(arguments: Array(UInt8(0x00)...UInt8(0x1F)) + [0x7F])
  func everyControlByteIsRefusedAndNamed(_ byte: UInt8) {
    let hex = "0x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
    for (bytes, position) in [
      ([byte] + Array("a.txt".utf8), 1), (Array("a".utf8) + [byte] + Array("b.txt".utf8), 2),
      (Array("a/b.txt".utf8) + [byte], 8),
    ] {
      let message = refusal(bytes) ?? ""
      #expect(message.contains(": byte \(position) is \(hex)"), "\(message)")
      #expect(message.hasSuffix(", a control byte; a path holds none"), "\(message)")
      // Quoted with the byte escaped: the message itself holds no control byte.
      #expect(message.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F }, "\(message)")
    }
  }

  /// The C1 control characters, valid UTF-8, are refused too, and quoted as bytes: a terminal
  /// showing the message would obey U+009B as it obeys ESC [.
  @Test func c1ControlCharactersAreRefusedAndQuotedAsBytes() {
    #expect(
      refusal(Array("a\u{9B}31mb".utf8))
        == #""a\194\15531mb": bytes 2 and 3 are U+009B, a control character; a path holds none"#)
    #expect(refusal(Array("é\u{85}".utf8))?.contains("bytes 3 and 4 are U+0085") == true)
  }

  @Test func bytesThatAreNotUTF8AreRefusedAndNamed() throws {
    #expect(
      refusal([0x61, 0xFF, 0x62])
        == #""a\255b": byte 2 (0xFF) is not UTF-8; a path is UTF-8 text"#)
    // A lone continuation byte, a truncated sequence, an overlong encoding of '/'.
    #expect(refusal([0x80])?.contains("byte 1 (0x80) is not UTF-8") == true)
    #expect(refusal(Array("é".utf8.dropLast()) + [0x41])?.contains("byte 1 (0xC3)") == true)
    #expect(refusal([0x61, 0xC0, 0xAF, 0x62])?.contains("byte 2 (0xC0) is not UTF-8") == true)
    // Valid UTF-8 is taken, and shown as it is.
    #expect(try DataPath(validating: "café/ノート.txt").components == ["café", "ノート.txt"])
  }

  @Test func absoluteEmptyAndClimbingPathsAreRefused() throws {
    #expect(
      refusal(Array("/etc/passwd".utf8))
        == #""/etc/passwd": it is absolute; give a path relative to the directory"#)
    #expect(refusal([]) == #""": the path is empty"#)
    for climbing in ["..", "../x", "a/../../x", "a/..", "a/b/../c", "./..", "a//../b"] {
      #expect(
        refusal(Array(climbing.utf8))
          == "\"\(climbing)\": '..' is refused; the path must stay under the directory")
    }
    // `...` and names that merely start with dots are names.
    #expect(try DataPath(validating: ".../..x/x..").components == ["...", "..x", "x.."])
  }

  /// At the limits the path is taken; one byte over, it is refused, and the message quotes only
  /// the start of it.
  @Test func lengthsAreBoundedAtTheKernelsLimits() throws {
    let name = String(repeating: "n", count: DataPath.maximumComponentLength)
    #expect(try DataPath(validating: name).components == [name])
    #expect(
      refusal(Array((name + "n").utf8))?.hasSuffix(
        "a name in it is 256 bytes long; a name may have at most 255") == true)
    let whole = Array(repeating: String(repeating: "m", count: 200), count: 20).joined(separator: "/")
    let atLimit = whole + "/" + String(repeating: "x", count: DataPath.maximumLength - whole.count - 1)
    #expect(atLimit.utf8.count == DataPath.maximumLength)
    #expect(try DataPath(validating: atLimit).components.count == 21)
    let message = refusal(Array((atLimit + "x").utf8)) ?? ""
    #expect(message.hasSuffix("it is 4097 bytes long; a path may have at most 4096"))
    #expect(message.count < 200, "the message quotes only the start: \(message)")
    #expect(message.contains("… 4017 more bytes"))
  }

  /// A quoted path a few bytes over the quote's length is quoted whole: its note would be as
  /// long as what it hid.
  @Test func aPathAFewBytesOverTheQuoteIsQuotedWhole() {
    let path = "/" + String(repeating: "q", count: 84)
    let message = refusal(Array(path.utf8)) ?? ""
    #expect(message.contains("\"\(path)\""), "\(message)")
    #expect(!message.contains("more bytes"), "\(message)")
  }

  @Test func dotsAndRepeatedSlashesAreDroppedAndDotIsTheRoot() throws {
    #expect(try DataPath(validating: "./notes//a.txt/").description == "notes/a.txt")
    #expect(try DataPath(validating: ".") == .root)
    #expect(try DataPath(validating: "././/") == .root)
    #expect(DataPath.root.description == ".")
    #expect(try DataPath(validating: "a.txt").appendingToName(".corrupt-1").description
      == "a.txt.corrupt-1")
    #expect(throws: DataPath.Invalid.self) { try DataPath.root.appendingToName("/..") }
  }

  /// Whatever the bytes, a path is taken only when each of its components is a plain name, and
  /// its text reads back as the same path. (Seeded bytes drawn from the bytes that matter:
  /// '/', '.', NUL, controls, DEL, high bytes, letters.)
  @Test func anyBytesGiveAPlainPathOrARefusal() {
    var generator = SplitMix64(seed: 27)
    let alphabet: [UInt8] = [0x2F, 0x2E, 0x2E, 0x2F, 0x00, 0x0A, 0x0D, 0x1F, 0x7F, 0x80, 0xC3, 0xA9, 0xFF, 0x61, 0x62, 0x20]
    var taken = 0
    for _ in 0..<20_000 {
      let length = Int(generator.next() % 12)
      let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
      guard let path = try? DataPath(validating: bytes) else { continue }
      taken += 1
      #expect(bytes.first != 0x2F && !bytes.isEmpty)
      #expect(bytes.allSatisfy { $0 >= 0x20 && $0 != 0x7F })
      for component in path.components {
        #expect(!component.isEmpty && component != "." && component != ".." && !component.contains("/"))
      }
      #expect((try? DataPath(validating: path.description)) == path)
    }
    #expect(taken > 100, "the generator gave too few valid paths to say anything")
  }
}

/// A path is cut where the kernel cuts it, at each byte `/`: Swift's Characters are grapheme
/// clusters, and a `/` followed by a combining mark, a joiner or a variation selector, or after
/// a prepended mark (U+0600), was one Character with it, kept inside a component, and the
/// kernel followed it out of the root (`../\u{200D}evil/x`; an attacker's finding).
@Suite struct DataPathBytesTests {
  /// Scalars that join with what is beside them into one grapheme cluster, and plain ones.
  static let alphabet: [String] = [
    "/", ".", "a", "\u{301}", "\u{200D}", "\u{600}", "\u{FE0F}", "\u{1F3FB}", "\u{E9}",
    "\u{1100}", "\u{1161}", "\r\n".dropFirst().description,
  ]

  /// What the kernel would walk: the byte `/` cuts; empty and `.` parts are dropped; `..` is
  /// refused (nil).
  static func kernelComponents(_ bytes: [UInt8]) -> [[UInt8]]? {
    var parts: [[UInt8]] = []
    for part in bytes.split(separator: UInt8(ascii: "/")) {
      if part.elementsEqual([0x2E]) { continue }
      if part.elementsEqual([0x2E, 0x2E]) { return nil }
      parts.append(Array(part))
    }
    return parts
  }

  @Test func componentsAreCutAtEveryByteSlash() throws {
    var generator = SplitMix64(seed: 7)
    for _ in 0..<20_000 {
      let length = Int(generator.next() % 9) + 1
      let text = (0..<length).map { _ in
        Self.alphabet[Int(generator.next() % UInt64(Self.alphabet.count))]
      }.joined()
      let bytes = Array(text.utf8)
      let expected = Self.kernelComponents(bytes)
      let path = try? DataPath(validating: bytes)
      guard let expected, !bytes.isEmpty, bytes.first != UInt8(ascii: "/") else {
        // `..` somewhere, or empty, or absolute: refused.
        #expect(path == nil, "\(bytes) was taken")
        continue
      }
      let components = try #require(path, "\(bytes) was refused").components
      #expect(components.map { Array($0.utf8) } == expected, "\(bytes)")
      #expect(components.allSatisfy { !$0.utf8.contains(UInt8(ascii: "/")) })
    }
    // The attack itself.
    #expect(throws: DataPath.Invalid.self) { try DataPath(validating: "../\u{200D}evil/x") }
    #expect(try DataPath(validating: "s\u{600}/.composable-feature").components.count == 2)
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
  }
}
