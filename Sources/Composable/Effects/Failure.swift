/// Why a reducer refused an action: the error it reported.
public struct ActionFailure: Error, Sendable, CustomStringConvertible {
  /// The error the reducer reported.
  public let error: any Error & Sendable

  /// A failure that carries `error`.
  ///
  /// ```swift
  /// return .failure(ActionFailure(TitleError.empty))
  /// ```
  public init(_ error: any Error & Sendable) { self.error = error }

  public var description: String { "\(error)" }
}

extension Effect {
  /// Says that the reducer refused the action: it changed nothing (a Lua feature rolled its
  /// state back), and what composes it must not go on as if it had succeeded. `CombineReducers`
  /// stops at it: the reducers after it do not run for this action, and the effects of those
  /// before it are dropped. `then` still runs: an action that tells the parent, say.
  ///
  /// The failure is reported where it happened (a `LuaFeatureReducer`'s `onError`); the store
  /// starts nothing for it but `then`.
  ///
  /// ```swift
  /// guard !state.title.isEmpty else {
  ///   return .failure(ActionFailure(TitleError.empty), then: .send(.delegate(.rejected)))
  /// }
  /// ```
  public static func failure(_ failure: ActionFailure, then: Self = .none) -> Self {
    Self(.failed(failure, then: then))
  }

  /// `failure(_:then:)` for `error`, sending `action` after it when there is one (an action
  /// that tells the parent).
  ///
  /// ```swift
  /// return .failure(TitleError.empty, sending: .delegate(.rejected))
  /// ```
  public static func failure(_ error: any Error & Sendable, sending action: Action?) -> Self {
    .failure(ActionFailure(error), then: action.map { .send($0) } ?? .none)
  }

  /// The failure this effect says, when it says one (see `failure(_:then:)`).
  public var failure: ActionFailure? {
    switch operation {
    case let .failed(failure, _): failure
    case let .named(_, effect), let .holding(_, effect), let .cancellable(_, _, effect):
      effect.failure
    default: nil
    }
  }
}
