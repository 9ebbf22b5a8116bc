import Foundation

/// Decides which modules `require` may load in a sandbox, and where their source comes from.
public protocol LuaModuleResolver {
  /// The module `name` (`"todo"`, `"lib.strings"`), or nil when it is not allowed or not there.
  func source(ofModule name: String) throws -> LuaModuleSource?
  /// Where `name` was looked for, for the "not found" message.
  func searchDescription(for name: String) -> String
}

/// The source of one module that `require` may load, and the name its errors give it. A
/// `LuaModuleResolver` returns one for each module it allows.
public struct LuaModuleSource: Equatable, Sendable {
  /// The source as the file holds it: bytes, which a string literal may hold any of.
  public var bytes: LuaString
  /// The source as text (bytes that are not UTF-8 replaced), for tools that read it.
  public var code: String { String(decoding: bytes.bytes, as: UTF8.self) }
  /// How errors name the module: `todo.lua` gives `todo.lua:3: ...`.
  public var chunkName: String
  /// `code` compiled at build time, loaded in its place: for the host's own library. Its chunk
  /// keeps the name it was compiled with, not `chunkName`.
  package var precompiled: LuaPrecompiledChunk?

  /// A module of source text.
  ///
  /// ```swift
  /// let answer = LuaModuleSource(code: "return { value = 42 }", chunkName: "answer.lua")
  /// ```
  public init(code: String, chunkName: String) {
    self.init(bytes: LuaString(code), chunkName: chunkName)
  }

  /// A module of source bytes, kept exactly: a string literal in it may hold bytes that are not
  /// UTF-8.
  ///
  /// ```swift
  /// let bytes = try LuaSourceFile.bytes(of: URL(fileURLWithPath: "latin.lua"))
  /// let module = LuaModuleSource(bytes: LuaString(bytes: bytes), chunkName: "latin.lua")
  /// ```
  public init(bytes: LuaString, chunkName: String) {
    self.bytes = bytes
    self.chunkName = chunkName
  }

  package init(code: String, precompiled: LuaPrecompiledChunk, chunkName: String) {
    self.init(code: code, chunkName: chunkName)
    self.precompiled = precompiled
  }

  /// A module of source bytes and its bytecode: the bytes as they are, not decoded as text (a
  /// host's library, made at every start, is read as text only by tools).
  package init(bytes: [UInt8], precompiled: LuaPrecompiledChunk, chunkName: String) {
    self.init(bytes: LuaString(bytes: bytes), chunkName: chunkName)
    self.precompiled = precompiled
  }
}

/// Modules given as source text, for embedded libraries and tests.
public struct LuaModuleTable: LuaModuleResolver, Sendable {
  /// The modules, by the name `require` gives them (`"lib.strings"`).
  public var modules: [String: LuaModuleSource]
  /// Modules the sandbox has loaded already (its `preloaded` values), named with these where
  /// a failed `require` lists what is allowed.
  public var alsoAllowed: [String] = []

  /// Modules of source text, by name; each chunk is named after its module (`todo` is
  /// `todo.lua`).
  ///
  /// ```swift
  /// let modules = LuaModuleTable(["greet": "return function(name) return 'hi ' .. name end"])
  /// let sandbox = try vm.makeSandbox(.init(modules: modules))
  /// ```
  public init(_ modules: [String: String]) {
    self.modules = modules.reduce(into: [:]) { result, entry in
      result[entry.key] = LuaModuleSource(code: entry.value, chunkName: entry.key + ".lua")
    }
  }

  /// Modules given with their sources as they are, chunk names included.
  ///
  /// ```swift
  /// let modules = LuaModuleTable(
  ///   modules: ["answer": LuaModuleSource(code: "return 42", chunkName: "answer.lua")])
  /// ```
  public init(modules: [String: LuaModuleSource]) { self.modules = modules }

  /// The module `name`, or nil when the table has none of that name.
  public func source(ofModule name: String) -> LuaModuleSource? { modules[name] }

  /// The modules allowed, `alsoAllowed` among them, for the "not found" message.
  public func searchDescription(for name: String) -> String {
    "the allowed modules are "
      + Set(modules.keys).union(alsoAllowed).sorted().map { "'\($0)'" }.joined(separator: ", ")
  }
}

/// Modules as files under directories: `a.b` is `a/b.lua` under the first directory that has
/// it. Names are plain words joined by dots, so `..` cannot climb out, and a file whose real
/// path (symlinks resolved) leaves its directory is refused.
public struct LuaModuleDirectories: LuaModuleResolver, Sendable {
  /// The directories searched, in order.
  public var directories: [URL]

  /// Modules under `directories`, searched in order.
  ///
  /// ```swift
  /// let modules = LuaModuleDirectories([URL(fileURLWithPath: "Features")])
  /// let sandbox = try vm.makeSandbox(.init(modules: modules))
  /// ```
  public init(_ directories: [URL]) { self.directories = directories }

  /// The module `name` from the first directory that has its file, or nil when none has. Throws
  /// a `LuaModuleError` for a name that is not words joined by dots, for a file whose real path
  /// leaves its directory, and for one that cannot be read.
  public func source(ofModule name: String) throws -> LuaModuleSource? {
    guard let relative = Self.relativePath(of: name) else {
      throw LuaModuleError.invalidName(name)
    }
    for directory in directories {
      let root = directory.standardizedFileURL.resolvingSymlinksInPath()
      let file = root.appendingPathComponent(relative).resolvingSymlinksInPath()
      guard FileManager.default.fileExists(atPath: file.path) else { continue }
      guard file.path.hasPrefix(root.path + "/") else {
        throw LuaModuleError.outside(name, file.path)
      }
      let bytes: [UInt8]
      do { bytes = try LuaSourceFile.bytes(of: file) } catch {
        throw LuaModuleError.unreadable(name, file.path, error.reason)
      }
      return LuaModuleSource(bytes: LuaString(bytes: bytes), chunkName: relative)
    }
    return nil
  }

  /// The file module `name` would load from, if there is one.
  public func fileURL(ofModule name: String) -> URL? {
    guard let relative = Self.relativePath(of: name) else { return nil }
    for directory in directories {
      let file = directory.appendingPathComponent(relative)
      if FileManager.default.fileExists(atPath: file.path) { return file }
    }
    return nil
  }

  /// The files `name` was looked for at, for the "not found" message.
  public func searchDescription(for name: String) -> String {
    let relative = Self.relativePath(of: name) ?? name
    return directories.map { "no file '\($0.appendingPathComponent(relative).path)'" }
      .joined(separator: ", ")
  }

  /// `a.b` -> `a/b.lua`; nil unless each part is letters, digits, `_` or `-`.
  static func relativePath(of name: String) -> String? {
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    let valid = parts.allSatisfy { part in
      !part.isEmpty
        && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }
    return valid ? parts.joined(separator: "/") + ".lua" : nil
  }
}

/// Why `LuaModuleDirectories` would not load a module; `description` says it for a person.
public enum LuaModuleError: Error, CustomStringConvertible {
  /// The name is not words of letters, digits, `_` or `-` joined by dots (it holds `/`, say).
  case invalidName(String)
  /// The module's file, symlinks resolved, lies outside its directory: its name, and that path.
  case outside(String, String)
  /// The module's file is there but cannot be read: its name, path, and why.
  case unreadable(String, String, String)

  public var description: String {
    switch self {
    case let .invalidName(name):
      "invalid module name '\(name)': use words of letters, digits, '_' or '-' joined by dots"
    case let .outside(name, path):
      "module '\(name)' resolves to \(path), outside the module directories"
    case let .unreadable(name, path, reason):
      "module '\(name)' cannot be read from \(path): \(reason)"
    }
  }
}
