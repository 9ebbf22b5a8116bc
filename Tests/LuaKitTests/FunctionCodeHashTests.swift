import LuaKit
import Testing

/// `LuaVM.codeHash(of:)`: the same code gives the same number, in any VM and whatever its lines;
/// code that would run otherwise gives another, down through the functions and values it holds.
@Suite struct FunctionCodeHashTests {
  /// The function a chunk returns, made by running `source` in `vm`.
  func function(_ source: String, in vm: LuaVM) throws -> LuaReference {
    guard case let .function(made) = try vm.evaluate(source)[0] else {
      throw LuaError.runtime(message: "no function", traceback: "")
    }
    return made
  }

  func hash(_ source: String, in vm: LuaVM? = nil) throws -> UInt64? {
    let vm = try vm ?? LuaVM()
    return vm.codeHash(of: try function(source, in: vm))
  }

  static let sending = """
    local name = "a"
    local function make(n) return { type = name, n = n } end
    return function(send) send(make(1)) end
    """

  @Test func theSameCodeIsTheSameNumberInAnyVMWhateverItsLines() throws {
    let first = try hash(Self.sending)
    #expect(first != nil)
    #expect(try hash(Self.sending) == first)
    #expect(try hash("\n\n-- moved\n" + Self.sending) == first)
    #expect(try hash(Self.sending.replacingOccurrences(of: "send(make", with: "send( make")) == first)
    // Names of locals and parameters are not code either.
    let renamed = Self.sending.replacingOccurrences(of: "function(send)", with: "function(s)")
      .replacingOccurrences(of: "send(make", with: "s(make")
    #expect(try hash(renamed) == first)
    // Nor where each function begins and ends, nested ones too.
    let spread = Self.sending.replacingOccurrences(of: " end", with: "\n\n end")
    #expect(try hash(spread) == first)
  }

  /// Each change a coroutine's author could make: its body, a constant, a helper it calls, a
  /// value it holds, how many it holds.
  @Test func codeThatWouldRunOtherwiseIsAnotherNumber() throws {
    let base = try hash(Self.sending)
    let changes = [
      Self.sending.replacingOccurrences(of: "send(make(1))", with: "send(make(2))"),
      Self.sending.replacingOccurrences(of: "n = n", with: "n = n + 1"),
      Self.sending.replacingOccurrences(of: #"local name = "a""#, with: #"local name = "b""#),
      Self.sending.replacingOccurrences(of: #"local name = "a""#, with: "local name = 1"),
      Self.sending.replacingOccurrences(of: #"local name = "a""#, with: "local name = 1.0"),
      Self.sending.replacingOccurrences(of: #"local name = "a""#, with: "local name = true"),
    ]
    var seen: Set<UInt64?> = [base]
    for changed in changes {
      let code = try hash(changed)
      #expect(code != nil)
      #expect(!seen.contains(code), "\(changed)")
      seen.insert(code)
    }
  }

  /// A table it holds counts by its type alone, and the globals not at all (what they hold is
  /// data as much as code: a check that walked them refused a reload of the same file); a C
  /// function by which it is; what is no function has no number.
  @Test func tablesGlobalsAndCFunctionsAndNonFunctions() throws {
    let vm = try LuaVM()
    let one = try hash("local t = { 1 } return function() return t[1] end", in: vm)
    #expect(try hash("local t = { 2, 3 } return function() return t[1] end", in: vm) == one)
    #expect(try hash("return print", in: vm) != hash("return tostring", in: vm))
    #expect(try hash("return print", in: vm) == hash("return print", in: vm))
    let global = "return function() return helper(), require end"
    try vm.evaluate("function helper() return 1 end")
    let before = try hash(global, in: vm)
    try vm.evaluate("function helper() return 2 end X = { 1 } package.loaded.x = { 2 }")
    #expect(try hash(global, in: vm) == before)
    let table = try vm.callKeepingData(try vm.load("return { 1 }", chunkName: "t"))
    #expect(table.map(vm.codeHash(of:)) == .some(nil))
  }

  /// A long string met many times is hashed once, and the bytes hashed in one walk are bounded
  /// (an attacker's finding: a 1 MiB string held 30,000 times took minutes).
  @Test func aLongStringHeldManyTimesIsHashedOnce() throws {
    let vm = try LuaVM()
    var upvalues = "local s = string.rep('x', 1 << 20)\n"
    var uses: [String] = []
    for i in 1...150 {
      upvalues += "local s\(i) = s\n"
      uses.append("s\(i)")
    }
    let code = try hash(upvalues + "return function() return \(uses.joined(separator: ", ")) end", in: vm)
    #expect(code != nil)
    let other = try hash(
      upvalues.replacingOccurrences(of: "'x'", with: "'y'")
        + "return function() return \(uses.joined(separator: ", ")) end", in: vm)
    #expect(other != code)
  }

  /// A function that holds itself, two that hold each other, and a chain of closures deeper
  /// than it looks: each ends, leaving the stack as it was.
  @Test func cyclesAndDepthEnd() throws {
    let vm = try LuaVM()
    let recursive = try hash(
      "local function f(n) if n > 0 then return f(n - 1) end end return f", in: vm)
    #expect(recursive != nil)
    let mutual = try hash(
      """
      local g
      local function f(n) return g(n) end
      function g(n) return f(n) end
      return f
      """, in: vm)
    #expect(mutual != nil && mutual != recursive)
    var chain = "local f0 = function() return 0 end\n"
    for level in 1...150 { chain += "local f\(level) = function() return f\(level - 1)() end\n" }
    chain += "return f150"
    let deep = try hash(chain, in: vm)
    #expect(deep != nil)
    // Past the levels looked into, a change is not seen: the depth is a bound, said here.
    let changedDeep = try hash(
      chain.replacingOccurrences(of: "return 0 end", with: "return 1 end"), in: vm)
    #expect(changedDeep == deep)
    #expect(try vm.evaluate("return 1 + 1")[0] == 2)
  }
}
