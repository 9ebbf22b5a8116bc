extension Effect {
  /// The same effect, named for the messages that speak of it: the TestStore says "a debounce
  /// (id "search") is still running" rather than "an effect". The outermost name wins: a
  /// debounce of an HTTP request is a debounce while it runs (a host may rename what an
  /// operator made: Lua's `effect.every` is Swift's timer).
  /// A kind in one word is an operator's (`debounce`), shown with the language's prefix; one
  /// in words (`the save of todos.saved.lua`) is shown as it is.
  ///
  /// ```swift
  /// return .run { [bytes] _ in try await api.upload(bytes) }.named("upload")
  /// ```
  public func named(_ kind: String) -> Self {
    if isNone { return self }
    return Self(.named(kind, self))
  }
}

/// How messages name an effect by its kind: an operator's name in one word with the language's
/// prefix (`effect.debounce`, `.debounce`), a name in words (`the save of todos.saved.lua`) as
/// it is; nil for plain work, which has no kind.
public func effectKindName(_ kind: String?, prefix: String) -> String? {
  kind.map { $0.contains(" ") ? $0 : prefix + $0 }
}
