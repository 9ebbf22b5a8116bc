import SeededRandom

/// Generated Lua programs for LuaDifferentialTests: each a body of statements that prints what
/// it finds with `out(...)` (lua/differential/prelude.lua). Tables the programs make go through
/// `S{...}`, which one side of the comparison makes state tables. The programs keep their
/// tables sequences (no holes), so that `#` has one answer, as it does for a state table.
struct DifferentialPrograms {
  var random: SplitMix64

  init(seed: UInt64) { random = SplitMix64(seed: seed) }

  mutating func pick<T>(_ choices: [T]) -> T { choices[random.below(choices.count)] }
  mutating func chance(_ percent: Int) -> Bool { random.below(100) < percent }

  /// A program of a kind chosen at random.
  mutating func program() -> String {
    switch random.below(5) {
    case 0, 1: return tableProgram()
    case 2: return patternProgram()
    case 3: return errorProgram()
    default: return miscellaneousProgram()
    }
  }

  // MARK: - The table library, on a table that may be a state table

  static let positions = [
    "-1", "0", "1", "2", "#t", "#t + 1", "#t + 2", "math.maxinteger", "math.mininteger", "2.5",
    "'1'", "'x'", "nil", "3.0",
  ]

  static let smallPositions = ["-1", "0", "1", "2", "#t", "#t + 1", "#t + 2"]

  mutating func element(strings: Bool) -> String {
    strings ? "'\(pick(["a", "b", "c", "d", "e", "aa", ""]))'" : "\(random.below(20) - 5)"
  }

  mutating func tableProgram() -> String {
    let strings = chance(50)
    let count = random.below(7)
    let elements = (0..<count).map { _ in element(strings: strings) }
    var lines = ["local t = S{ \(elements.joined(separator: ", ")) }"]
    for _ in 0..<(2 + random.below(8)) {
      let position = pick(Self.positions), other = pick(Self.positions)
      let value = element(strings: strings)
      switch random.below(16) {
      case 0: lines.append("out(pcall(table.insert, t, \(value)))")
      case 1: lines.append("out(pcall(table.insert, t, \(position), \(value)))")
      case 2: lines.append("out(pcall(table.remove, t))")
      case 3: lines.append("out(pcall(table.remove, t, \(position)))")
      case 4:
        // Ranges that plain Lua would walk for ages are left out: only their errors are asked.
        let move = pick([
          "\(pick(Self.smallPositions)), \(pick(Self.smallPositions)), \(pick(Self.positions))",
          "1, math.maxinteger, 2", "math.mininteger, 1, 1", "0, math.maxinteger, 1",
          "'a', 1, 1", "1, 2, nil",
        ])
        lines.append("out(pcall(table.move, t, \(move)))")
      case 5:
        lines.append(
          "local u = S{ \(element(strings: strings)) } out(pcall(table.move, t, "
            + "\(pick(Self.smallPositions)), \(pick(Self.smallPositions)), 1, u)) out(u)")
      case 6: lines.append("out(pcall(table.concat, t, \(pick(["','", "''", "nil", "1"])), \(position), \(other)))")
      case 7: lines.append("out(pcall(table.unpack, t, \(position), \(other)))")
      case 8: lines.append("out(pcall(table.sort, t))")
      case 9: lines.append("out(pcall(table.sort, t, function(a, b) return a > b end))")
      case 10: lines.append("out(pcall(table.sort, t, function(a, b) return true end))")
      case 11: lines.append("out(rawlen(t), rawget(t, \(position)), select('#', next(t)), #t)")
      case 12: lines.append("t[#t + 1] = \(value)")
      case 13: lines.append("if #t > 0 then t[#t] = nil end")
      case 14:
        // Called from Lua, whose rawset names no place for these (the state's named its line).
        lines.append("out(pcall(function() rawset(t, \(pick(["nil", "0/0"])), 1) end))")
      default:
        lines.append(
          "local seen = {} for k, v in pairs(t) do seen[#seen + 1] = k .. '=' .. v end "
            + "table.sort(seen) out(table.concat(seen, ' '), pairs(t) == next, rawequal(t, t))")
      }
    }
    lines.append("out(t, #t)")
    return lines.joined(separator: "\n")
  }

  // MARK: - Patterns

  static let subjectBytes = ["a", "b", "c", "(", ")", "[", "]", "%", ".", "-", " ", "1", "\\0", "x"]
  static let patternItems = [
    "a", "b", ".", "%a", "%d", "%s", "%w", "%%", "%(", "[abc]", "[^a]", "[a-c]", "[%a]", "[]]",
    "[^]]", "(", ")", "()", "%b()", "%f[%a]", "%1", "*", "+", "-", "?", "^", "$", "[", "%",
    "%z", "x*", "a-", "(a*)", "%2",
  ]

  mutating func patternProgram() -> String {
    let subject = (0..<random.below(12)).map { _ in pick(Self.subjectBytes) }.joined()
    let pattern = (0..<(1 + random.below(6))).map { _ in pick(Self.patternItems) }.joined()
    let s = "\"\(subject)\"", p = "\"\(pattern)\""
    let start = pick(["1", "2", "-1", "-3", "0", "100", "math.mininteger"])
    switch random.below(8) {
    case 0: return "out(pcall(string.find, \(s), \(p)))"
    case 1: return "out(pcall(string.find, \(s), \(p), \(start)))"
    case 2: return "out(pcall(string.find, \(s), \(p), \(start), true))"
    case 3: return "out(pcall(string.match, \(s), \(p), \(start)))"
    case 4:
      return "out(pcall(string.gsub, \(s), \(p), \(pick(["'<%0>'", "'%1'", "'%%'", "'%2x'", "''"])), \(pick(["nil", "1", "0", "-1"]))))"
    case 5:
      return "out(pcall(string.gsub, \(s), \(p), function(...) return select('#', ...) .. '' end))"
    case 6: return "out(pcall(string.gsub, \(s), \(p), S{ a = 'A', [''] = false }))"
    default:
      return """
        out(pcall(function()
          local found = {}
          for a, b in string.gmatch(\(s), \(p), \(start)) do
            found[#found + 1] = tostring(a) .. '/' .. tostring(b)
            if #found > 20 then break end
          end
          return table.concat(found, '|')
        end))
        """
    }
  }

  // MARK: - Errors: library functions given the wrong things

  static let functions = [
    "string.byte", "string.char", "string.find", "string.format", "string.gmatch", "string.gsub",
    "string.len", "string.lower", "string.match", "string.rep", "string.reverse", "string.sub",
    "string.upper", "string.pack", "string.packsize", "string.unpack", "table.concat",
    "table.insert", "table.move", "table.pack", "table.remove", "table.sort", "table.unpack",
    "math.abs", "math.ceil", "math.floor", "math.fmod", "math.max", "math.min", "math.modf",
    "math.tointeger", "math.type", "math.ult", "utf8.char", "utf8.codepoint", "utf8.len",
    "utf8.offset", "utf8.codes", "coroutine.close", "coroutine.create", "coroutine.resume",
    "coroutine.status", "coroutine.wrap", "coroutine.isyieldable", "ipairs", "next", "pairs",
    "pcall", "rawequal", "rawget", "rawlen", "rawset", "select", "setmetatable", "getmetatable",
    "tonumber", "tostring", "type", "xpcall", "load", "assert", "error",
    // The step ipairs hands out, called by hand with anything: `(ipairs(t))(t, i)`.
    "(ipairs(S{}))",
  ]
  static let values = [
    "nil", "true", "0", "-1", "1", "2", "3", "2^53", "math.maxinteger", "math.mininteger", "1.5",
    "0/0", "1/0", "''", "'abc'", "'10'", "'%d'", "'a%'", "S{}", "S{ 1, 2, 3 }", "S{ 'x', 'y' }",
    "print", "coroutine.create(print)", "'\\xff\\xfe'", "'é'", "-0.0",
  ]

  mutating func errorProgram() -> String {
    let function = pick(Self.functions)
    // Plain Lua would loop for ages on some of these (`string.rep('', 2^53)`,
    // `table.move(t, 1, math.maxinteger, 1)`): no huge counts for the functions that loop.
    let looping = ["string.rep", "table.move", "table.concat", "table.unpack", "table.insert"]
    let values = looping.contains(function)
      ? Self.values.filter { !["2^53", "math.maxinteger", "math.mininteger", "1/0"].contains($0) }
      : Self.values
    let arguments = (0..<random.below(4)).map { _ in pick(values) }
    return "out(pcall(\(function)\(arguments.isEmpty ? "" : ", ")\(arguments.joined(separator: ", "))))"
  }

  // MARK: - Strings, numbers, load

  mutating func miscellaneousProgram() -> String {
    let n = pick(["0", "1", "-1", "3", "100", "math.maxinteger", "math.mininteger", "-100", "2.0"])
    let m = pick(["0", "1", "-1", "3", "100", "math.maxinteger", "math.mininteger", "-100"])
    let s = pick(["''", "'hello'", "'héllo'", "'\\xff\\0a'", "('ab'):rep(20)"])
    switch random.below(12) {
    case 0:
      // Plain Lua repeats nothing n times over, for ages: `string.rep('', 2^62)`.
      let times = s == "''" ? pick(["0", "1", "3", "-1"]) : n
      return "out(pcall(string.rep, \(s), \(times), \(pick(["nil", "','", "''"]))))"
    case 1: return "out(pcall(string.byte, \(s), \(n), \(m)))"
    case 2: return "out(pcall(string.sub, \(s), \(n), \(m)))"
    case 3:
      let format = pick(["'%d'", "'%5.2f'", "'%q'", "'%s|%s'", "'%x'", "'%a'", "'%c'", "'%i'", "'%-5s|'", "'%10.3s|'", "'%'", "'%y'"])
      return "out(pcall(string.format, \(format), \(pick(Self.values)), \(pick(Self.values))))"
    case 4: return "out(pcall(utf8.len, \(s), \(n), \(m)))"
    case 5: return "out(pcall(utf8.offset, \(s), \(n), \(m)))"
    case 6: return "out(pcall(utf8.codepoint, \(s), \(n), \(m)))"
    case 7: return "out(pcall(tonumber, \(pick(["'10'", "' 0x10 '", "'1e1'", "'z'", "'  -7  '", "'8'", "'1.5'"])), \(pick(["nil", "2", "16", "36", "37", "1"]))))"
    case 8: return "out(pcall(select, \(n), 'a', 'b', 'c'))"
    case 9:
      let chunk = pick([
        "'return 1 +'", "'x ='", "'return ...'", "'local x <const> = 1; x = 2'", "'goto nowhere'",
        "'return \"unfinished'", "'for i = 1 do end'", "'return 1'", "'break'",
      ])
      return "out(load(\(chunk), \(pick(["nil", "'=c'", "'@f.lua'"])), \(pick(["nil", "'t'", "'b'", "'bt'"]))))"
    case 10:
      return "out(pcall(function() local co = coroutine.wrap(function(...) coroutine.yield(...) error(\(pick(["'x'", "{}", "nil", "42"]))) end) out(co(1, 2)) return co() end))"
    default:
      return "out(pcall(function() return \(n) // \(m), \(n) % \(m), \(n) + \(m), math.ult(\(n), \(m)) end))"
    }
  }
}
