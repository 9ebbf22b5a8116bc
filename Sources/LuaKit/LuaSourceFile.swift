import Foundation

/// Reads a Lua script from disk, saying exactly why when it cannot: no such file, a directory,
/// not readable, or not UTF-8 text (naming the first line that is not).
public enum LuaSourceFile {
  public struct Unreadable: Error, CustomStringConvertible {
    /// Why, in words that follow "cannot read FILE: ".
    public let reason: String
    public var description: String { reason }
  }

  public static func read(_ url: URL) throws(Unreadable) -> String {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw Unreadable(reason: "no such file")
    }
    guard !isDirectory.boolValue else {
      throw Unreadable(reason: "it is a directory; give the .lua file")
    }
    guard let data = FileManager.default.contents(atPath: url.path) else {
      throw Unreadable(reason: "it cannot be read (permission denied?)")
    }
    let bytes = [UInt8](data)
    if let text = String(validating: bytes, as: UTF8.self) { return text }
    var line = 1
    for lineBytes in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      if String(validating: lineBytes, as: UTF8.self) == nil { break }
      line += 1
    }
    throw Unreadable(reason: "line \(line) is not UTF-8 text")
  }
}
