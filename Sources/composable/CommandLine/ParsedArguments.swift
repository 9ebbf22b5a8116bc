import ComposableLua

/// A command line read against a command's shape: its arguments and options by name, each
/// value read as its type by the command, with a usage error naming the option when it is not.
struct ParsedArguments {
  let shape: CommandShape
  private var values: [String: [String]] = [:]
  private var flags: Set<String> = []

  /// Reads `words`; `-h` or `--help` anywhere before `--` throws `UsageError.help`.
  init(_ words: [String], as shape: CommandShape) throws(UsageError) {
    self.shape = shape
    var positional: [String] = []
    var index = 0
    var optionsEnded = false
    while index < words.count {
      let word = words[index]
      index += 1
      if optionsEnded || !word.hasPrefix("-") || word == "-" {
        positional.append(word)
        continue
      }
      if word == "--" {
        optionsEnded = true
        continue
      }
      if word == "-h" || word == "--help" { throw .help }
      guard word.hasPrefix("--") else {
        throw UsageError("unknown option '\(word)'" + shape.nearestOption(to: word))
      }
      var name = String(word.dropFirst(2))
      var inlineValue: String?
      if let equals = name.firstIndex(of: "=") {
        inlineValue = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      if name == "help" { throw UsageError("--help takes no value") }  // `--help=1`
      guard let option = shape.options.first(where: { $0.name == name }) else {
        throw UsageError("unknown option '\(word)'" + shape.nearestOption(to: name))
      }
      guard let valueName = option.valueName else {
        if inlineValue != nil { throw UsageError("--\(name) takes no value") }
        flags.insert(name)
        continue
      }
      let value: String
      if let inlineValue {
        value = inlineValue
      } else {
        guard index < words.count else {
          throw UsageError("missing value for '--\(name) <\(valueName)>'")
        }
        value = words[index]
        index += 1
      }
      if option.repeats {
        values[name, default: []].append(value)
      } else {
        values[name] = [value]  // given twice: the last one
      }
    }
    for argument in shape.arguments {
      if argument.repeats {
        values[argument.name] = positional
        positional = []
      } else {
        guard !positional.isEmpty else {
          throw UsageError("missing expected argument '<\(argument.name)>'")
        }
        values[argument.name] = [positional.removeFirst()]
      }
    }
    if let extra = positional.first { throw UsageError("unexpected argument '\(extra)'") }
  }

  /// The argument or option's value; for one given more than once, the last.
  func string(_ name: String) -> String? { values[name]?.last }

  /// Every value of a repeating option or argument, in order.
  func strings(_ name: String) -> [String] { values[name] ?? [] }

  func flag(_ name: String) -> Bool { flags.contains(name) }

  /// The option's value read by `read`, `defaultValue` when it was not given; a value `read`
  /// refuses is a usage error that says what was `expected`.
  func value<Value>(
    _ name: String, default defaultValue: Value, expected: String,
    _ read: (String) -> Value?
  ) throws(UsageError) -> Value {
    guard let text = string(name) else { return defaultValue }
    guard let value = read(text) else {
      throw UsageError("--\(name): expected \(expected), got \(text)")
    }
    return value
  }

  /// An option whose values are a few words (`--uuid live|incrementing`).
  func choice<Choice: RawRepresentable & CaseIterable>(
    _ name: String, default defaultValue: Choice
  ) throws(UsageError) -> Choice where Choice.RawValue == String {
    let words = Choice.allCases.map(\.rawValue)
    let expected =
      words.count == 2
      ? "\(words[0]) or \(words[1])"
      : words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "")
    return try value(name, default: defaultValue, expected: expected) { Choice(rawValue: $0) }
  }
}

extension CommandShape {
  /// `" (did you mean '--data'?)"` for a mistyped option (`--dat`, `-data`), or nothing.
  func nearestOption(to word: String) -> String {
    let name = String(word.drop(while: { $0 == "-" }))
    let names = options.map(\.name) + ["help"]
    // `-data`: one dash; `--DATA`: capitals.
    if let exact = [name, name.lowercased()].first(where: names.contains) {
      return " (did you mean '--\(exact)'?)"
    }
    return NearestName.nearest(to: name, among: names).map { " (did you mean '--\($0)'?)" } ?? ""
  }
}
