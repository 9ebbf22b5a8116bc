import Composable
import Foundation
import IssueReporting
import LuaKit

/// Swapping in new code while the state stays.
extension LuaFeature {
  /// Replaces the reducer with the one in `source`, keeping the state. The new code loads in a
  /// fresh sandbox; if it is broken, the error is thrown and the old reducer stays. A
  /// `migrate(state)` in the new code runs once, as a transaction.
  public func swap(toSource source: String, file: String? = nil) throws(LuaFeatureError) {
    try swap(toSource: LuaString(source), file: file)
  }

  /// `swap` for source as bytes, as a file holds them.
  public func swap(toSource source: LuaString, file: String? = nil) throws(LuaFeatureError) {
    try queue.access { (vm, current) throws(LuaFeatureError) in
      current.swapFailed = true  // until the new code is in: a `Loaded` made below says false
      let file = file ?? current.fileName
      let fresh: LuaSandbox
      do throws(LuaError) {
        fresh = try vm.makeSandbox(current.sandbox.configuration)
        try Self.installEffectGlobals(vm: vm, sandbox: fresh)
      } catch {
        throw .load(file: file, message: error.description)
      }
      moduleFiles?.startLoad()
      let module = try Self.loadModule(source, file: file, vm: vm, sandbox: fresh)
      let fingerprint = Self.codeFingerprint(of: source, modules: moduleFiles)
      var migrationChanges: Result<[LuaDifference], LuaFeatureError> = .success([])
      if let migrate = module.migrate {
        // Its changes read before the commit, from the journal, as an action's are.
        do throws(LuaError) { migrationChanges = try runMigration(migrate, in: vm) } catch {
          throw .load(file: file, message: "migrate(state) failed: \(error)")
        }
      }
      let step: LuaTransactionCall
      let stepFunction: LuaReference
      do throws(LuaError) {
        (step, stepFunction) = try makeStep(module.reduce, in: vm, sandbox: fresh)
      } catch {
        throw .load(file: file, message: error.description)
      }
      // What the old code's initial_state() gives, to say whether the new one gives another.
      let before = current.module.initialState.flatMap { try? vm.callKeepingData($0) }
      var saver = current.saver
      if module.persistence?.path != saver?.path {
        saver = makeSaver(for: module.persistence)
        // A file there now was never loaded by this run: its saves go beside it, not over it
        // (a reload that came to persist wrote over a state it had never read).
        saver?.knowsFile(nil)
      }
      current = Loaded(
        sandbox: fresh, module: module, step: step, stepFunction: stepFunction, fileName: file,
        saver: saver,
        lastSaved: current.lastSaved, migrationChanges: migrationChanges,
        codeFingerprint: fingerprint)
      current.sourceDigest = CodeDigest.of(source.bytes)
      if let makeState = module.initialState {
        (current.reloadedShapeGaps, current.initialStateChanged, current.initialStateProblem) =
          shapeAgainst(makeState, before: before, vm)
      }
    }
  }

  /// Reads `file` and swaps its code in, as `swap(toSource:)`. A file that cannot be read throws
  /// `LuaSourceFile.Unreadable` and counts as a failed swap (`holdsLoadedCode`): a file deleted
  /// and put back is loaded again, and said so.
  ///
  /// ```swift
  /// let file = URL(fileURLWithPath: "features/counter.lua")
  /// let feature = try LuaFeature(contentsOf: file)
  /// try feature.swap(toContentsOf: file)  // after a save
  /// ```
  public func swap(toContentsOf file: URL) throws {
    let bytes: [UInt8]
    do {
      bytes = try LuaSourceFile.bytes(of: file)
    } catch {
      queue.access { _, current in current.swapFailed = true }
      throw error
    }
    try swap(toSource: LuaString(bytes: bytes))
  }

  /// Whether `file` and the files of every module the code running required (as it loaded, or
  /// since: a `require` in `reduce`) hold what was loaded: a save that changed nothing, or one a
  /// `:reload` took already, which a hot reload skips (a watcher's late event for it reloaded
  /// under a REPL's `:test`). False when a swap failed since (the code on disk may be what runs
  /// again, and the person is told so), or a file cannot be read.
  ///
  /// ```swift
  /// let file = URL(fileURLWithPath: "features/counter.lua")
  /// let feature = try LuaFeature(contentsOf: file)
  /// feature.holdsLoadedCode(file)  // true, until the file is saved with other code
  /// ```
  public func holdsLoadedCode(_ file: URL) -> Bool {
    queue.access { _, current in
      guard !current.swapFailed, let bytes = try? LuaSourceFile.bytes(of: file),
        CodeDigest.of(bytes) == current.sourceDigest
      else { return false }
      guard let moduleFiles else { return true }
      guard let onDisk = moduleFiles.digestsOnDisk else { return false }
      return onDisk.elementsEqual(moduleFiles.loadedDigests) { $0 == $1 }
    }
  }

  /// Where the state is not shaped as the new code's `initial_state()` gives it (a field it
  /// gives that the state lacks, or a table where it has a scalar or the other way: the top
  /// level, as `RestoredShapeGap.gaps` compares), whether it gives another state than the old
  /// code's did (`before`), and what is wrong with it when a run of the new code could not
  /// start from it (it raises, or gives no table). All in Lua: neither the state nor the initial
  /// states are read into Swift (a 200,000-field one took seconds a reload).
  private func shapeAgainst(
    _ makeState: LuaReference, before: LuaReference?, _ vm: LuaVM
  ) -> ((gaps: [RestoredShapeGap], count: Int)?, Bool, String?) {
    let made: LuaReference
    do throws(LuaError) {
      guard let result = try vm.callKeepingData(makeState) else {
        return (nil, false, nil)  // nil: an empty state, as at load
      }
      made = result
    } catch {
      return (nil, false, "initial_state() fails now: \(error.message)")
    }
    guard made.typeName == "table" else {
      var found = (try? vm.value(of: made).typeName) ?? made.typeName
      if found == "integer" { found = "number" }
      return (nil, false, "initial_state() gives a \(found) now, where a state is a table")
    }
    var arguments: [LuaArgument] = [.reference(stateReference), .reference(made)]
    if let before { arguments.append(.reference(before)) }
    guard
      let shape = try? vm.load(Self.shapeSource, chunkName: "=shape"),
      let found = try? vm.call(shape, arguments: arguments),
      found.count == 3, let list = found[0].tableValue?.sequence, let count = found[1].intValue
    else { return (nil, false, nil) }
    var gaps: [RestoredShapeGap] = []
    for index in stride(from: 0, to: list.count - 2, by: 3) {
      guard case let .string(key) = list[index], let expected = list[index + 1].stringValue,
        let now = list[index + 2].stringValue
      else { continue }
      let path = LuaValue.pathComponent(.string(key), atRoot: true)
      gaps.append(RestoredShapeGap(path: path, expected: expected, found: now))
    }
    return (gaps.isEmpty ? nil : (gaps, count), found[2] == true, nil)
  }

  /// Given the real state, the new initial state and (maybe) the old one: the first 5 gaps in
  /// the order of their keys' bytes, flat (key, the type initial gives, the type the state
  /// holds), how many there are, and whether the two initial states differ (tables compared by
  /// contents; NaN as itself). The 5 are kept in one pass: the state may lack every field.
  static let shapeSource = """
    local state, new, old = ...
    local first, count = {}, 0
    for key, value in next, new do
      if type(key) == "string" then
        local now = rawget(state, key)
        local want = type(value)
        if now == nil or (type(now) == "table") ~= (want == "table") then
          count = count + 1
          local at = #first + 1
          while at > 1 and key < first[at - 1][1] do at = at - 1 end
          if at <= 5 then
            table.insert(first, at, { key, want, type(now) })
            first[6] = nil
          end
        end
      end
    end
    local flat = {}
    for _, gap in ipairs(first) do
      flat[#flat + 1] = gap[1]
      flat[#flat + 1] = gap[2]
      flat[#flat + 1] = gap[3]
    end
    local function same(a, b, seen)
      if a == b then return true end
      if type(a) ~= "table" or type(b) ~= "table" then return a ~= a and b ~= b end
      if seen[a] == b then return true end
      seen[a] = b
      for k, v in next, a do
        if not same(v, rawget(b, k), seen) then return false end
      end
      for k in next, b do
        if rawget(a, k) == nil then return false end
      end
      return true
    end
    return flat, count, old ~= nil and not same(old, new, {})
    """
}
