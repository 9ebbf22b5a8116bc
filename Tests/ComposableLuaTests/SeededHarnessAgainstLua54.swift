import ComposableLua
import LuaKit
import TestSupport
import Testing

/// A seeded harness run as a feature and under `lua5.4`: for each seed, an action that runs it
/// and raises is rolled back whole, and one that runs it stores in `out` what `lua5.4` printed.
/// `featureSource` runs `harness(state, action.seed, action.nops)` into `state.out` (raising
/// after when `action.fail`); `plainDriver` prints each seed's as `PlainLua.transcripts` reads.
func expectHarnessMatchesLua54(
  featureSource: String, plainDriver: String, seeds: Int, nops: Int,
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let plain = try PlainLua.transcripts(of: plainDriver, seeds: 1, seeds, nops: nops)
  #expect(plain.count == seeds, sourceLocation: sourceLocation)
  for seed in 1...seeds {
    let feature = try LuaFeature(source: LuaString(featureSource), file: "sorts.lua")
    let before = try feature.state()
    #expect(throws: LuaFeatureError.self, sourceLocation: sourceLocation) {
      try feature.step([
        "type": "run", "seed": .integer(seed), "nops": .integer(nops), "fail": true,
      ])
    }
    #expect(
      try feature.state() == before, "seed \(seed): the rollback", sourceLocation: sourceLocation)
    _ = try feature.step(["type": "run", "seed": .integer(seed), "nops": .integer(nops)])
    let out = try feature.state()["out"]
    #expect(
      out == .string(LuaString(plain[seed] ?? "")), "seed \(seed)", sourceLocation: sourceLocation)
  }
}
