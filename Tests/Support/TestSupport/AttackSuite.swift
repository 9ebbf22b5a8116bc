import ComposableLua
import LuaKit
import Testing

/// What a suite of attacks through an AttackFeature does with one: runs code as an action,
/// checks that code fails leaving the state as it was, reads what the code saw.
public protocol AttackSuite {}

extension AttackSuite {
  /// Runs `code` as an action.
  @discardableResult
  public static func run(_ f: LuaFeature, _ code: String) throws -> LuaStepOutcome {
    try f.step(["type": "x", "code": .string(LuaString(code))])
  }

  /// Runs `code`, which must not fail (a failure is recorded with its message).
  public static func ok(
    _ f: LuaFeature, _ code: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    do { try run(f, code) } catch {
      Issue.record("failed: \(error)\n\(code)", sourceLocation: sourceLocation)
    }
  }

  /// Runs `code`, which must fail; the state must be as before (what changed is recorded too).
  public static func fails(
    _ f: LuaFeature, _ code: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let before = try f.state()
    var failed = false
    do { try run(f, code) } catch { failed = true }
    #expect(failed, "did not fail: \(code)", sourceLocation: sourceLocation)
    let after = try f.state()
    #expect(
      after == before, "state changed by failed action:\n\(code)", sourceLocation: sourceLocation)
    if after != before {
      let diff = LuaValue.differences(from: before, to: after)
      Issue.record("the differences: \(diff)", sourceLocation: sourceLocation)
    }
  }

  /// What the code stored in `state.seen`.
  public static func seen(_ f: LuaFeature) throws -> LuaValue { try f.state()["seen"] }

  /// `state.seen` must be `expected`.
  public static func expectSeen(
    _ f: LuaFeature, _ expected: LuaValue, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let observed = try seen(f)
    #expect(observed == expected, "observed \(observed)", sourceLocation: sourceLocation)
  }
}
