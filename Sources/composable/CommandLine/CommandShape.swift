/// What a command takes on its command line, and what it says about itself: parsing, the usage
/// line and `--help` are all made from this one description.
///
/// The command line is read by hand, not by a framework: the one we used reflected over every
/// command's properties at launch, and that was most of what `composable run` cost to start.
struct CommandShape: Sendable {
  /// A word in its place: `<feature>`.
  struct Argument: Sendable {
    let name: String
    let help: String
    /// Takes every word left (`composable test [paths] ...`); none is fine.
    var repeats = false
  }

  /// `--name VALUE`, or a flag (`--name`) when `valueName` is nil.
  struct Option: Sendable {
    let name: String
    var valueName: String? = nil
    let help: String
    /// May be given more than once; each value is kept.
    var repeats = false

    static func flag(_ name: String, help: String) -> Option {
      Option(name: name, valueName: nil, help: help)
    }

    static func value(_ name: String, help: String, repeats: Bool = false) -> Option {
      Option(name: name, valueName: name, help: help, repeats: repeats)
    }
  }

  let name: String
  let abstract: String
  var discussion: String? = nil
  var arguments: [Argument] = []
  var options: [Option] = []

  /// `composable run <feature> [--env <env> ...] [--watch]`.
  var usage: String {
    var words = ["composable", name]
    for argument in arguments {
      words.append(argument.repeats ? "[<\(argument.name)> ...]" : "<\(argument.name)>")
    }
    for option in options {
      guard let valueName = option.valueName else {
        words.append("[--\(option.name)]")
        continue
      }
      words.append("[--\(option.name) <\(valueName)>\(option.repeats ? " ..." : "")]")
    }
    return words.joined(separator: " ")
  }

  /// What `composable NAME --help` prints.
  var help: String {
    var text = HelpText.wrapped("OVERVIEW: \(abstract)", indent: 0) + "\n"
    if let discussion { text += "\n" + HelpText.wrapped(discussion, indent: 0) + "\n" }
    text += "\nUSAGE: \(usage)\n"
    if !arguments.isEmpty {
      text += "\nARGUMENTS:\n"
      for argument in arguments { text += HelpText.entry("<\(argument.name)>", argument.help) }
    }
    text += "\nOPTIONS:\n"
    for option in options {
      let valueName = option.valueName.map { " <\($0)>" } ?? ""
      text += HelpText.entry("--\(option.name)\(valueName)", option.help)
    }
    text += HelpText.entry("-h, --help", "Show help information.")
    return text
  }
}

/// Help laid out for an 80-column terminal: each entry's text in a column of its own.
enum HelpText {
  static let column = 26
  static let width = 80

  /// `  --wait <wait>           Seconds to wait ...`, the text wrapped under itself.
  static func entry(_ name: String, _ help: String) -> String {
    let label = "  " + name
    let text = wrapped(help, indent: column)
    if label.count < column - 1 {
      return label + String(repeating: " ", count: column - label.count)
        + text.dropFirst(column) + "\n"
    }
    return label + "\n" + text + "\n"
  }

  /// `text` in lines of at most `width` columns, each indented by `indent`.
  static func wrapped(_ text: String, indent: Int) -> String {
    let margin = String(repeating: " ", count: indent)
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
      if !line.isEmpty, indent + line.count + 1 + word.count > width {
        lines.append(margin + line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty || lines.isEmpty { lines.append(margin + line) }
    return lines.joined(separator: "\n")
  }
}
