import CLua
import LuaSupport
import Testing

@testable import LuaKit

/// The pattern functions count their steps against the budget (Patterns.c), and otherwise
/// answer exactly as Lua's own: the same results, the same errors, on handwritten cases and on
/// thousands of generated ones, compared side by side in one VM.
@Suite struct LuaPatternTests {
  /// Compares ours with Lua's on `cases` (a Lua expression giving a list of { s, p [, init] }
  /// ) and returns the mismatches, described.
  private func mismatches(casesSource: String) throws -> [String] {
    let vm = try LuaVM(limits: .unlimited)
    lk_push_original_pattern_functions(vm.L)
    lua_setglobal(vm.L, "lua_patterns")
    let results = try vm.evaluate("""
      local cases = \(casesSource)
      local ours, theirs = string, lua_patterns
      local function show(ok, ...)
        local parts = { tostring(ok) }
        for i = 1, select("#", ...) do parts[#parts + 1] = tostring((select(i, ...))) end
        return table.concat(parts, ", ")
      end
      local function all(library, s, p, init)
        local out = {}
        local ok, message = pcall(function()
          for a, b, c in library.gmatch(s, p, init) do out[#out + 1] = show(true, a, b, c) end
        end)
        if not ok then return "error: " .. message end
        return table.concat(out, " | ")
      end
      local replacements = {
        "<%0>", "[%1]", "%%", { a = "A", ab = false }, function(x, y) return y or x .. "!" end,
      }
      local mismatches = {}
      local function compare(what, a, b)
        if a ~= b then mismatches[#mismatches + 1] = what .. ": ours " .. a .. " / Lua's " .. b end
      end
      for _, case in ipairs(cases) do
        local s, p, init = case[1], case[2], case[3]
        local where = string.format("(%q, %q, %s)", s, p, tostring(init))
        compare("find" .. where, show(pcall(ours.find, s, p, init)),
          show(pcall(theirs.find, s, p, init)))
        compare("match" .. where, show(pcall(ours.match, s, p, init)),
          show(pcall(theirs.match, s, p, init)))
        compare("gmatch" .. where, all(ours, s, p, init), all(theirs, s, p, init))
        for i, r in ipairs(replacements) do
          compare("gsub" .. i .. where, show(pcall(ours.gsub, s, p, r)),
            show(pcall(theirs.gsub, s, p, r)))
        end
        compare("gsub max 1" .. where, show(pcall(ours.gsub, s, p, "x", 1)),
          show(pcall(theirs.gsub, s, p, "x", 1)))
        if #mismatches > 20 then break end
      end
      return mismatches
      """, chunkName: "compare.lua")
    return results.first?.tableValue?.sequence.map { $0.stringValue ?? "?" } ?? []
  }

  @Test func handwrittenCasesAnswerAsLuasOwn() throws {
    let found = try mismatches(casesSource: #"""
      {
        { "hello world", "o w" }, { "hello world", "o", 6 }, { "hello", "l+" }, { "hello", "l*" },
        { "hello", "l-" }, { "hello", "l?" }, { "hello", "^h" }, { "hello", "^e" },
        { "hello", "o$" }, { "hello", "l$" }, { "a$b", "$b" }, { "a.b", "%." }, { "a.b", "." },
        { "key = value", "(%w+)%s*=%s*(%w+)" }, { "hello", "()ll()" }, { "hello", "(l)(l)" },
        { "THE (quick) fox", "%((%a+)%)" }, { "f(a(b)c)d", "%b()" },
        { "THE (quick) fox", "%f[%a]%a+" },
        { "hello", "[aeiou]" }, { "hello", "[^aeiou]+" }, { "a-z", "[a-]" }, { "]x", "[]]" },
        { "x]", "[^]]" }, { "abc", "[%a-]" }, { "hello", "(h)(e)%2" }, { "hello", "(l)%1" },
        { "abc", "%" }, { "abc", "[a" }, { "abc", "x[a" }, { "abc", "%b(" }, { "abc", "%fa" },
        { "abc", "(a" }, { "abc", "a)" }, { "abc", "%1" }, { "abc", "(a)%2" }, { "abc", "%0" },
        { "abc", "()%1" }, { "", "" }, { "", "a*" }, { "abc", "" }, { "abc", "", 10 },
        { "abc", "b", -1 }, { "abc", "b", -2 }, { "abc", "b", -10 }, { "abc", "b", 0 },
        { "aaa", "a-b" }, { "aaab", "a-b" }, { "abc", "%w%w?%w?%w?" }, { "a\0b", "%z" },
        { "a\0b", "\0" }, { "a\0b", "[\0]" }, { "a+b", "a+b" }, { "a+b", "a%+b" },
        { "x = 1, y = 22", "(%w+) = (%d+)" }, { "one two  three", "%S+" },
        { "résumé", "[\128-\255]+" },
        { "hello", ".-l" }, { "hello", ".*l" }, { "[x]", "%[(.-)%]" }, { "abc", "^(a)(b)(c)$" },
        { "aaa", "^a" }, { "abab", "ab" }, { "abc", "b*" }, { "  pad  ", "^%s*(.-)%s*$" },
      }
      """#)
    #expect(found == [])
  }

  @Test func generatedCasesAnswerAsLuasOwn() throws {
    // 4,000 cases here, each through find, match, gmatch and six gsubs: about 36,000 calls.
    let found = try mismatches(casesSource: #"""
      (function()
        math.randomseed(20261123)
        local atoms = {
          "a", "b", "c", ".", "%a", "%d", "%s", "%w", "%A", "[ab]", "[^a]", "[a-c]", "[%d.]",
          "(", ")", "()", "%1", "%2", "%b()", "%f[ab]", "%f[%W]", "%", "[", "]", "-", "*", "+",
          "?", "^", "$", "%.", "x",
        }
        local quantifiers = { "", "", "", "*", "+", "-", "?" }
        local letters = { "a", "b", "c", "(", ")", " ", "1", ".", "x", "ab", "" }
        local cases = {}
        for i = 1, 4000 do
          local subject = {}
          for j = 1, math.random(0, 8) do subject[j] = letters[math.random(#letters)] end
          local pattern = {}
          if math.random(6) == 1 then pattern[1] = "^" end
          for j = 1, math.random(0, 5) do
            local atom = atoms[math.random(#atoms)]
            pattern[#pattern + 1] = atom .. quantifiers[math.random(#quantifiers)]
          end
          if math.random(6) == 1 then pattern[#pattern + 1] = "$" end
          local init = math.random(4) == 1 and math.random(-4, 6) or nil
          cases[i] = { table.concat(subject), table.concat(pattern), init }
        end
        return cases
      end)()
      """#)
    #expect(found == [])
  }

  @Test func anExponentialPatternStopsAtTheBudget() throws {
    let vm = try LuaVM(limits: LuaLimits(memory: 8 << 20, instructions: 1_000_000))
    let sandbox = try vm.makeSandbox()
    #expect {
      try vm.evaluate(
        #"return ("a"):rep(40):find(("a?"):rep(40) .. ("a"):rep(40))"#, chunkName: "slow.lua",
        in: sandbox)
    } throws: { error in
      guard case let .instructionLimit(limit, message, _) = error as? LuaError else { return false }
      return limit == 1_000_000 && message == "slow.lua:1: instruction limit of 1000000 exceeded"
    }
    for function in ["match", "gsub", "gmatch"] {
      let call =
        function == "gsub" ? "gsub(p, 'x')" : function == "gmatch" ? "gmatch(p)()" : "match(p)"
      #expect(throws: LuaError.self) {
        try vm.evaluate(
          "local p = ('a?'):rep(40) .. ('a'):rep(40) return ('a'):rep(40):\(call)", in: sandbox)
      }
    }
    #expect(try vm.evaluate("return ('aaa'):find('a+')", in: sandbox) == [1, 3])
  }

  @Test func deepBacktrackingIsTooComplexNotACrash() throws {
    let vm = try LuaVM(limits: LuaLimits(memory: 8 << 20, instructions: nil))
    #expect {
      try vm.evaluate("return ('a'):rep(300):find(('a?'):rep(300))")
    } throws: { error in (error as? LuaError)?.message.hasSuffix("pattern too complex") == true }
  }
}
