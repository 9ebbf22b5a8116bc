/// The description of what `body` throws, or nil when it does not throw.
func errorMessage(_ body: () async throws -> Void) async -> String? {
  do {
    try await body()
    return nil
  } catch {
    return "\(error)"
  }
}
