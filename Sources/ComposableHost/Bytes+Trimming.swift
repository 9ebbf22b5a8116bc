/// Trimming a line read as bytes (`composable run`, the REPL), which is never decoded first: a
/// line's bytes reach Lua as they came.
extension Collection<UInt8> {
  /// The bytes without the spaces and tabs around them: what tells a bare word or a command.
  public var trimmingSpacesAndTabs: SubSequence {
    trimming { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
  }

  /// The bytes without the white space Lua skips around them (space, tab, line breaks, vertical
  /// tab, form feed).
  public var trimmingLuaSpace: SubSequence {
    trimming { $0 == 0x20 || (0x09...0x0D).contains($0) }
  }

  private func trimming(_ isBlank: (UInt8) -> Bool) -> SubSequence {
    guard let first = firstIndex(where: { !isBlank($0) }) else { return self[endIndex...] }
    var end = first
    var index = first
    while index != endIndex {
      if !isBlank(self[index]) { end = self.index(after: index) }
      formIndex(after: &index)
    }
    return self[first..<end]
  }
}
