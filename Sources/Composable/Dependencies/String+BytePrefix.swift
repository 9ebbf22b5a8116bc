extension String {
  /// Whether the string's UTF-8 bytes start with `prefix`'s, as the kernel compares a file's
  /// name. `hasPrefix` compares characters, and a combining mark after the prefix makes another
  /// character of its last one: `".composable-\u{301}x"` did not start `.composable-` to it.
  func hasBytePrefix(_ prefix: String) -> Bool { utf8.starts(with: prefix.utf8) }

  /// Whether the string's UTF-8 bytes end with `suffix`'s (see `hasBytePrefix`).
  func hasByteSuffix(_ suffix: String) -> Bool {
    utf8.count >= suffix.utf8.count && utf8.suffix(suffix.utf8.count).elementsEqual(suffix.utf8)
  }
}
