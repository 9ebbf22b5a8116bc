import Synchronization

/// The effects of one feature that may still run, and about how many bytes of data they hold
/// in Swift: bounded, as the VM's memory is, so that a feature cannot make the host hold
/// without end what it can make in a moment (a thousand timers per action, each with its
/// action, sent again and again).
///
/// Each effect that lasts (a timer, a delayed action, a coroutine, a request, a file operation)
/// holds a `Hold` from when its reducer returned it until it ends, is cancelled, or is dropped;
/// a result that would go past either bound fails its action, which is rolled back.
final class LuaEffectsInFlight: Sendable {
  /// Effects that may still run at once.
  static let maximumEffects = 100_000
  /// Bytes their data may hold at once (`LuaValue.heldBytes`).
  static let maximumBytes = 256 << 20

  private struct Totals {
    var effects = 0
    var bytes = 0
  }
  private let totals = Mutex(Totals())

  /// What one effect holds; given back when it is released.
  final class Hold: Sendable {
    let owner: LuaEffectsInFlight
    let bytes: Int
    fileprivate init(owner: LuaEffectsInFlight, bytes: Int) {
      self.owner = owner
      self.bytes = bytes
    }
    deinit {
      owner.totals.withLock {
        $0.effects -= 1
        $0.bytes -= bytes
      }
    }
  }

  /// Why one more effect holding `bytes` may not start, or nil, with its hold.
  func hold(bytes: Int) -> Result<Hold, Refusal> {
    totals.withLock { totals in
      if totals.effects >= Self.maximumEffects { return .failure(.tooManyEffects) }
      if bytes > Self.maximumBytes - totals.bytes { return .failure(.tooManyBytes) }
      totals.effects += 1
      totals.bytes += bytes
      return .success(Hold(owner: self, bytes: bytes))
    }
  }

  var count: Int { totals.withLock { $0.effects } }

  enum Refusal: Error {
    case tooManyEffects, tooManyBytes

    var message: String {
      switch self {
      case .tooManyEffects:
        "more than \(LuaEffectsInFlight.maximumEffects) effects would be running at once "
          + "(timers, delayed actions, coroutines and requests not yet ended). To fix, cancel "
          + "effects that are no longer needed (effect.cancellable and effect.cancel), or start "
          + "fewer"
      case .tooManyBytes:
        "the running effects would hold more than \(LuaEffectsInFlight.maximumBytes >> 20) MiB "
          + "of data (the actions of timers and delayed actions, requests' bodies, files' "
          + "contents). To fix, send smaller actions, or cancel effects that are no longer "
          + "needed"
      }
    }
  }
}
