import Composable
import LuaKit

/// Every kind of effect `composable.effect` makes, each defined in its own file of this
/// folder, its Lua side too (`LuaEffectKindSource`, copied into the library, its annotations and
/// docs/lua-api.md by scripts/generate-effect-kinds). Adding a kind is its file, a line here and
/// its test. A request kind (`LuaEffectRequestKind`) also needs its `RecordedExchange.Kind` and
/// how a test written from a session serves it (LuaTestWriter, SwiftTestWriter): that is
/// ComposableHost's, which this layer does not know; EffectKindsListTests requires the first.
package enum LuaEffectKinds {
  /// In the order messages list them (`unknown effect kind ...; the kinds are ...`).
  static let all: [any LuaEffectKind.Type] = [
    NoneEffect.self, SendEffect.self, MergeEffect.self, ConcatEffect.self, AfterEffect.self,
    EveryEffect.self, CancellableEffect.self, CancelEffect.self, DebounceEffect.self,
    ThrottleEffect.self, RunEffect.self, HTTPEffect.self, FileEffect.self,
  ]

  /// The kinds that ask the outside world, in the order of `all`.
  static let requests: [any LuaEffectRequestKind.Type] = all.compactMap {
    $0 as? any LuaEffectRequestKind.Type
  }

  /// `all` by name, made once, each with the keys its tables may hold (`kind` and its
  /// `fields`): the interpreter's dispatch, and its check that no field is misspelt.
  static let byName: [String: Entry] = Dictionary(
    uniqueKeysWithValues: all.map { kind in
      let keys = Set((["kind"] + kind.fields).map { LuaValue.string(LuaString($0)) })
      return (kind.name, Entry(kind: kind, keys: keys))
    })

  struct Entry {
    let kind: any LuaEffectKind.Type
    let keys: Set<LuaValue>
  }

  /// `requests` by the host call an `effect.run` coroutine yields for them.
  static let byHostCall: [String: any LuaEffectRequestKind.Type] = Dictionary(
    uniqueKeysWithValues: requests.map { ($0.hostCall, $0) })

  /// "none, send, merge, ...", for messages.
  static let listed = all.map { $0.name }.joined(separator: ", ")

  /// `dependencies` whose clients for every request kind note each exchange in `recorder`
  /// (a session's recording, which ComposableHost keeps).
  package static func recording(
    _ dependencies: DependencyValues, into recorder: LuaExchangeRecorder
  ) -> DependencyValues {
    requests.reduce(dependencies) { $1.recording($0, into: recorder) }
  }
}
