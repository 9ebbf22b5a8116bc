import Composable
import ComposableLua
import Foundation
import LuaKit

/// One request an effect made of the outside world in a session, and its answer: an HTTP
/// request and response, or a file operation and its result. A replay does not need them
/// (effects' results come back as the actions they sent); a test written from the session
/// serves them to the feature's effects in place of the network and the disk.
public struct RecordedExchange: Equatable, Sendable {
  /// Where a request went: `http` for the network, `file` for the disk. The raw values are the
  /// names of the effects that make the requests (`effect.http`, `effect.file`).
  public enum Kind: String, CaseIterable, Sendable { case http, file }

  /// Whether the request was an HTTP request or a file operation.
  public var kind: Kind
  /// `{ method, url, body }` for HTTP; `{ operation, path }` for a file.
  public var request: LuaValue
  /// HTTP: `{ status, headers, body }`. A file: `contents` (read; nil when there is no such
  /// file), `names` (list), `exists`; nil for a write.
  public var answer: LuaValue
  /// What the request failed with, when it failed.
  public var error: String?
  /// The effect that made the request was cancelled before it took an answer (a jump, a
  /// screen popped, `effect.cancel`): it sent nothing of it, so a test keeps the request in
  /// flight until it cancels the effect too (an HTTP answer's `delay = math.huge`).
  public var cancelled: Bool = false
  /// The number of the action whose effect made the request, on the session's timeline (nil:
  /// not known).
  public var startedBy: Int? = nil
  /// When it started and when it was answered: seconds on the store's clock.
  public var start: Double
  /// When it was answered, on the same clock: `end - start` is how long the request took.
  public var end: Double
}

/// The exchanges of a session, in the order their requests were made.
public final class ExchangeLog: @unchecked Sendable {
  private let lock = NSLock()
  /// A place for each request made, filled when it is answered (under `lock`): the action whose
  /// effect made it, when it began; `dropped` once a new branch left it behind.
  private var recorded:
    [(startedBy: Int?, start: Double, exchange: RecordedExchange?, dropped: Bool)] = []

  /// An empty log. Only this module notes exchanges in a log (a `ReplSession` fills its
  /// `exchanges` as its effects make requests), so one made elsewhere stays empty.
  ///
  /// ```swift
  /// let log = ExchangeLog()
  /// assert(log.all.isEmpty)
  /// // A session's own log, filled as its effects ran:
  /// let requests = session.exchanges.all.filter { $0.kind == .http }
  /// ```
  public init() {}

  /// The exchanges answered so far, in the order their requests were made (a test made from
  /// the session makes them in that order).
  public var all: [RecordedExchange] { lock.withLock { recorded.compactMap(kept) } }

  private func kept(
    _ entry: (startedBy: Int?, start: Double, exchange: RecordedExchange?, dropped: Bool)
  ) -> RecordedExchange? {
    entry.dropped ? nil : entry.exchange
  }

  /// The exchanges answered so far but those of the requests from the `place`th on that began
  /// after `time` (of the time after the action a test ends at; nil place: all).
  func all(leavingOutFrom place: Int?, after time: Double) -> [RecordedExchange] {
    lock.withLock {
      recorded.indices.compactMap { index in
        if let place, index >= place, recorded[index].start > time { return nil }
        return kept(recorded[index])
      }
    }
  }

  /// How many requests have begun: a timeline notes it at each action, so that those begun
  /// after an action it leaves behind can go with it.
  var begun: Int { lock.withLock { recorded.count } }

  /// A new branch starts after action `position`, at `time` on the store's clock: the requests
  /// the actions after it made, answered or not, are not the session's any more, nor those an
  /// effect of a kept action began once the action after it was reduced (`from`) and later than
  /// `time` (an `effect.run` coroutine's next request, made in the time left behind, which a
  /// test stops at `time` before it makes it; one made at `time`, a paused session's, it makes).
  /// A test gave their answers to the new branch's requests (attackers' findings). Of those
  /// begun before the new branch's action was reduced (`until`) only: its own effects may have
  /// begun already.
  func dropBranch(after position: Int, from place: Int?, at time: Double, until: Int) {
    lock.withLock {
      for index in recorded.indices.prefix(until) {
        let entry = recorded[index]
        if (entry.startedBy ?? 0) > position || (index >= (place ?? .max) && entry.start > time) {
          recorded[index].dropped = true
        }
      }
    }
  }

  /// A place for a request beginning at `time`.
  private func reserve(at time: Double) -> Int {
    lock.withLock {
      recorded.append((LuaExchangeRecorder.origin, time, nil, false))
      return recorded.count - 1
    }
  }

  private func fill(_ place: Int, with exchange: RecordedExchange) {
    lock.withLock {
      if recorded.indices.contains(place) { recorded[place].exchange = exchange }
    }
  }

  /// `dependencies` whose clients for every request kind (HTTP, files: `LuaEffectKinds`) note
  /// each exchange here, timed on `clock`.
  func recording(_ dependencies: DependencyValues, clock: ReplClock) -> DependencyValues {
    let recorder = LuaExchangeRecorder(
      now: { Seconds.of(clock.now.offset) },
      place: { [self] in reserve(at: Seconds.of(clock.now.offset)) }
    ) { [self] kind, request, answer, error, cancelled, start, end in
      // Every request kind has its `Kind` (EffectKindsListTests checks it).
      guard let kind = RecordedExchange.Kind(rawValue: kind) else { return }
      fill(
        start.place,
        with: RecordedExchange(
          kind: kind, request: request, answer: answer, error: error, cancelled: cancelled,
          startedBy: start.origin, start: start.time, end: end))
    }
    return LuaEffectKinds.recording(dependencies, into: recorder)
  }
}
