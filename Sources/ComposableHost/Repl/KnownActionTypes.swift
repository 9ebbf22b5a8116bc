import Foundation
import ComposableLua
import LuaKit

/// The action types a feature handles, as far as the host can tell without running it: the
/// types its source compares `action.type` (or a local holding it) with, the types listed in
/// `Feature.actions`, and the types seen this session. For completion, and for "did you mean".
public struct KnownActionTypes: Sendable {
  /// The types known, in no order.
  public private(set) var types: Set<String> = []

  /// Knows `types` (none by default); `found(besides:)` gives those a feature's files name.
  ///
  /// ```swift
  /// var known = KnownActionTypes(KnownActionTypes.found(besides: featureFile))
  /// known.insert("reset")
  /// let suggestion = known.nearest(to: "incremnet")  // "increment", if the feature names it
  /// ```
  public init(_ types: some Sequence<String> = []) { self.types = Set(types) }

  /// The types compared with in Lua `source`: `== "increment"` or `~= 'increment'`, either way
  /// round, where the other side names a type (`action.type`, `t`, `kind`, or a local set from
  /// a `.type`), and `"increment"` in a `Feature.actions = { ... }` list. A type may hold `.`,
  /// `-`, `/` and `:` (`"todos/clear"`).
  public static func found(inSource source: String) -> Set<String> {
    var found: Set<String> = []
    let names = typeNames(inSource: source)
    let bytes = Array(source.utf8)
    // Read outward from each `==` and `~=`: a regex that tried every place a name could begin
    // took time in the square of a long name's length (a module holding a 40 KB string stalled
    // the first note for 100 s, an attacker's finding); this reads each byte a few times.
    func isNameByte(_ byte: UInt8) -> Bool {
      byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
    func isTypeByte(_ byte: UInt8) -> Bool {
      isNameByte(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "/")
        || byte == UInt8(ascii: ":")
    }
    func isSpace(_ byte: UInt8) -> Bool {
      byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
    func startsName(_ byte: UInt8) -> Bool {
      isNameByte(byte) && byte != UInt8(ascii: ".") && !(byte >= 0x30 && byte <= 0x39)
    }
    // The name ending just before `end` (spaces skipped), if it is one that holds a type.
    func typeName(endingBefore end: Int) -> Bool {
      var end = end
      while end > 0, isSpace(bytes[end - 1]) { end -= 1 }
      var start = end
      while start > 0, isNameByte(bytes[start - 1]) { start -= 1 }
      guard start < end, startsName(bytes[start]) else { return false }
      let name = String(decoding: bytes[start..<end], as: UTF8.self)
      return name.hasSuffix(".type") || names.contains(name)
    }
    func typeName(startingAt start: Int) -> Bool {
      var start = start
      while start < bytes.count, isSpace(bytes[start]) { start += 1 }
      var end = start
      while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
      guard start < end, startsName(bytes[start]) else { return false }
      let name = String(decoding: bytes[start..<end], as: UTF8.self)
      return name.hasSuffix(".type") || names.contains(name)
    }
    // A quoted type: its range inside its quotes, given where its opening quote is.
    func quoted(openingAt quote: Int) -> Range<Int>? {
      guard quote < bytes.count, bytes[quote] == 0x22 || bytes[quote] == 0x27 else { return nil }
      var end = quote + 1
      while end < bytes.count, isTypeByte(bytes[end]) { end += 1 }
      guard end > quote + 1, end < bytes.count, bytes[end] == bytes[quote],
        startsName(bytes[quote + 1])
      else { return nil }
      return (quote + 1)..<end
    }
    func quoted(closingAt quote: Int) -> Range<Int>? {
      guard quote >= 0, bytes[quote] == 0x22 || bytes[quote] == 0x27 else { return nil }
      var start = quote
      while start > 0, isTypeByte(bytes[start - 1]) { start -= 1 }
      guard start < quote, start > 0, bytes[start - 1] == bytes[quote], startsName(bytes[start])
      else { return nil }
      return start..<quote
    }
    var index = 0
    while index + 1 < bytes.count {
      defer { index += 1 }
      guard bytes[index] == UInt8(ascii: "=") || bytes[index] == UInt8(ascii: "~"),
        bytes[index + 1] == UInt8(ascii: "=")
      else { continue }
      var after = index + 2
      while after < bytes.count, isSpace(bytes[after]) { after += 1 }
      if let type = quoted(openingAt: after), typeName(endingBefore: index) {
        found.insert(String(decoding: bytes[type], as: UTF8.self))
      }
      var before = index
      while before > 0, isSpace(bytes[before - 1]) { before -= 1 }
      if let type = quoted(closingAt: before - 1), typeName(startingAt: index + 2) {
        found.insert(String(decoding: bytes[type], as: UTF8.self))
      }
    }
    // Each list's opening found by a regex, its closing by a plain search from there: a file of
    // openings never closed costs one pass, not one pass per opening.
    let opening = #/\.actions\s*=\s*\{/#
    var rest = source[...]
    while let match = rest.firstMatch(of: opening) {
      guard let close = rest[match.range.upperBound...].firstIndex(of: "}") else { break }
      let list = rest[match.range.upperBound..<close]
      for word in list.matches(of: #/["']([A-Za-z_][A-Za-z0-9_.\/:-]*)["']/#) {
        found.insert(String(word.1))
      }
      rest = rest[close...]
    }
    return found
  }

  /// The names that hold an action's type in `source`: `type`, `t`, `kind`, and each local set
  /// from a `.type` (`local a = action.type`).
  static func typeNames(inSource source: String) -> Set<String> {
    var names: Set<String> = ["type", "t", "kind"]
    for match in source.matches(
      of:
        #/
        local \s+ ([A-Za-z_][A-Za-z0-9_]*) \s* (?: < \s* (?:const|close) \s* > \s* )?
        = \s* [A-Za-z_][A-Za-z0-9_.]* \.type \b
        /#)
    {
      names.insert(String(match.1))
    }
    return names
  }

  /// Whether `source` looks handlers up by an action's type (`handlers[action.type]`), or
  /// matches types by pattern (`action.type:match(...)`): then the types it handles are not
  /// all written where `found(inSource:)` finds them, and a type it does not name may be one it
  /// handles.
  public static func dispatchesOnType(inSource source: String) -> Bool {
    let names = typeNames(inSource: source).subtracting(["type"])
    for match in source.matches(of: #/\[\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\]/#) {
      let key = String(match.1)
      if key.hasSuffix(".type") || names.contains(key) { return true }
    }
    return source.contains(#/\.type\s*:\s*(?:match|find|sub|gmatch)\b/#)
  }

  /// The most bytes of a file beside the feature that are read for types: a module is far
  /// smaller; a large data file there (or one made to be slow to scan) is skipped.
  static let maximumScannedBytes = 1 << 20

  /// The sources of `files` that can be read: regular files (a link followed) of at most
  /// `maximumScannedBytes`.
  static func sources(of files: [URL]) -> [String] {
    files.compactMap { file in
      guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
        let size = attributes[.size] as? Int, size <= maximumScannedBytes
      else { return nil }
      return try? LuaSourceFile.read(file)
    }
  }

  /// The sources of the feature's file and the Lua files beside it and in the folders below
  /// (its modules), tests excepted: regular files of at most `maximumScannedBytes`, 3 folders
  /// deep, 200 files at most.
  static func sources(besides feature: URL) -> [String] {
    var sources: [String] = []
    var folders = [(feature.deletingLastPathComponent(), 0)]
    while let (folder, depth) = folders.popLast(), sources.count < 200 {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      for name in names.sorted() where !name.hasPrefix(".") {
        let url = folder.appendingPathComponent(name)
        // A link is not followed out of the folder: regular files and real folders only.
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        else { continue }
        let type = attributes[.type] as? FileAttributeType
        if type == .typeDirectory, depth < 3 {
          folders.append((url, depth + 1))
          continue
        }
        guard type == .typeRegular, name.hasSuffix(".lua"), !name.hasSuffix("_test.lua"),
          let size = attributes[.size] as? Int, size <= maximumScannedBytes,
          let source = try? LuaSourceFile.read(url)
        else { continue }
        sources.append(source)
      }
    }
    return sources
  }

  /// The types found in the feature's file and its modules (`sources(besides:)`).
  public static func found(besides feature: URL) -> Set<String> {
    sources(besides: feature).reduce(into: []) { $0.formUnion(found(inSource: $1)) }
  }

  /// The types the feature's file and the modules it required name (`found(inSource:)`), and
  /// whether any of them dispatches on types in a way that hides some
  /// (`dispatchesOnType(inSource:)`): then `unknownTypeNote(for:)` says only a near name. Other
  /// files beside the feature are not read: another feature's file there named types this one
  /// does not handle, and a typo of one of them went by unsaid.
  ///
  /// ```swift
  /// let known = KnownActionTypes(scanning: featureFile, modules: feature.moduleFiles?.required)
  /// ```
  public init(scanning feature: URL, modules: [URL]? = nil) {
    let sources = Self.sources(of: [feature] + (modules ?? []))
    self.init(sources.reduce(into: Set<String>()) { $0.formUnion(Self.found(inSource: $1)) })
    dispatchesOnType = sources.contains { Self.dispatchesOnType(inSource: $0) }
  }

  /// Whether the feature looks its handlers up by type, or matches types by pattern: a type
  /// its files do not name may still be one it handles.
  public var dispatchesOnType = false

  /// The type the feature's own file names first (compared with, or listed in
  /// `Feature.actions`): the example a host's first lines give. Nil when it names none.
  ///
  /// ```swift
  /// let example = KnownActionTypes.firstNamed(in: featureFile) ?? "increment"
  /// ```
  public static func firstNamed(in feature: URL) -> String? {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: feature.path),
      let size = attributes[.size] as? Int, size <= maximumScannedBytes,
      let source = try? LuaSourceFile.read(feature)
    else { return nil }
    // A plain scan, not `found(inSource:)`'s regexes: this runs at every start, and a regex's
    // first use costs more than the rest of the line it prints.
    let bytes = Array(source.utf8)
    func word(at start: Int) -> String? {
      var end = start
      while end < bytes.count,
        bytes[end] == UInt8(ascii: "_") || bytes[end] == UInt8(ascii: ".")
          || (bytes[end] | 0x20 >= UInt8(ascii: "a") && bytes[end] | 0x20 <= UInt8(ascii: "z"))
          || (end > start && bytes[end] >= UInt8(ascii: "0") && bytes[end] <= UInt8(ascii: "9"))
      {
        end += 1
      }
      guard end > start, end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
      return String(decoding: bytes[start..<end], as: UTF8.self)
    }
    func skippingSpaces(_ index: Int) -> Int {
      var index = index
      while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
      return index
    }
    func named(_ name: String, before index: Int) -> Bool {
      var end = index
      while end > 0, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
      let name = Array(name.utf8)
      guard end >= name.count, Array(bytes[(end - name.count)..<end]) == name else { return false }
      let before = end - name.count - 1
      return before < 0
        || !(bytes[before] == UInt8(ascii: "_")
          || (bytes[before] | 0x20 >= UInt8(ascii: "a")
            && bytes[before] | 0x20 <= UInt8(ascii: "z")))
    }
    var index = 0
    while index + 1 < bytes.count {
      if bytes[index] == UInt8(ascii: "="), bytes[index + 1] == UInt8(ascii: "="),
        ["type", "t", "kind"].contains(where: { named($0, before: index) })
      {
        let quote = skippingSpaces(index + 2)
        if quote < bytes.count, bytes[quote] == UInt8(ascii: "\""), let found = word(at: quote + 1)
        {
          return found
        }
      }
      if bytes[index] == UInt8(ascii: "{") {
        var before = index
        while before > 0, bytes[before - 1] == 0x20 || bytes[before - 1] == 0x09 { before -= 1 }
        if before > 0, bytes[before - 1] == UInt8(ascii: "="), named("actions", before: before - 1)
        {
          let quote = skippingSpaces(index + 1)
          if quote < bytes.count, bytes[quote] == UInt8(ascii: "\""),
            let found = word(at: quote + 1)
          {
            return found
          }
        }
      }
      index += 1
    }
    return nil
  }

  /// Adds `type` to the known types (one seen coming back from an effect, say).
  public mutating func insert(_ type: String) { types.insert(type) }

  /// For an action that changed nothing and started nothing: when its type, or the type at any
  /// level of a wrapped one (`{ type = "bok", action = "export" }`), is none the feature's files
  /// name, most likely one it does not handle, what to say about the outermost such type: `the
  /// feature names no action type "toggle" (did you mean toggle_read?)`, or the types it names.
  /// Nil when it names every one, or for an action with no type.
  public func unknownTypeNote(for action: LuaValue) -> String? {
    // A word sent as the action (`toggle`) is its type.
    let levels = action.stringValue.map { [$0] } ?? Self.types(atEachLevelOf: action)
    guard let type = levels.first(where: { !types.contains($0) }) else { return nil }
    var text = "the feature names no action type \(LuaValue(type))"
    if let nearest = nearest(to: type) {
      text += " (did you mean \(nearest)?)"
    } else if dispatchesOnType {
      return nil  // it may handle it by a lookup: only a near name is worth saying
    } else if !types.isEmpty {
      let names = types.sorted()
      text += " (it names " + names.prefix(8).joined(separator: ", ")
      text += names.count > 8 ? ", …)" : ")"
    }
    return text
  }

  /// The types of a wrapped action from the outside in: `book` then `export` for `{ type =
  /// "book", action = "export" }` (a word as the innermost action is its type), as deep as an
  /// action may be.
  static func types(atEachLevelOf action: LuaValue) -> [String] {
    var levels: [String] = [], action = action
    for _ in 0..<LuaValue.maximumDepth {
      guard let type = action.type.stringValue else { break }
      levels.append(type)
      let child = action.action
      if let word = child.stringValue {
        levels.append(word)
        break
      }
      action = child
    }
    return levels
  }

  /// The known type nearest to `type` (`NearestName`: by edit distance, when it is near enough
  /// to be a typo, or one `type` begins); nil when `type` is known.
  public func nearest(to type: String) -> String? {
    NearestName.nearest(to: type, among: types)
  }

  /// The types that start with `prefix`, sorted.
  public func completions(of prefix: String) -> [String] {
    types.filter { $0.hasPrefix(prefix) }.sorted()
  }
}
