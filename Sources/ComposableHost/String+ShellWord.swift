extension String {
  /// The text as one word a shell reads back as it is, for a command a message tells the user
  /// to run: left bare when it holds only letters, digits and `_ . / = : @ % + , -`, else in
  /// single quotes (a quote inside as `'\''`); a relative path that starts with `-` gets `./`
  /// before it, so the command does not take it for an option (`:save -x.lua` told the user
  /// to run `composable replay -x.lua`).
  package var shellWord: String {
    let path = hasPrefix("-") ? "./" + self : self
    let bare =
      !path.isEmpty
      && path.unicodeScalars.allSatisfy {
        ("a"..."z").contains($0) || ("A"..."Z").contains($0)
          || ("0"..."9").contains($0) || "_./=:@%+,-".unicodeScalars.contains($0)
      }
    if bare { return path }
    return "'" + path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }
}
