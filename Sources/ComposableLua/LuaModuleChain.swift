import LuaKit

/// Modules from several resolvers, the first that has a module winning: the built-in library
/// first, then the feature's own directory.
struct LuaModuleChain: LuaModuleResolver {
  let resolvers: [any LuaModuleResolver]

  func source(ofModule name: String) throws -> LuaModuleSource? {
    for resolver in resolvers {
      if let source = try resolver.source(ofModule: name) { return source }
    }
    return nil
  }

  func searchDescription(for name: String) -> String {
    resolvers.map { $0.searchDescription(for: name) }.joined(separator: "; ")
  }
}

/// The modules every feature's sandbox has as values: `composable.journal`, whose `table()`
/// makes a table journaled with the state (the library's bookkeeping, rolled back with a
/// failed action), and `composable.json`.
func builtInPreloads(in vm: LuaVM) -> [String: LuaValue] {
  [
    "composable.journal": ["table": .function(vm.journaledTableFunction())],
    "composable.json": .other(vm.jsonModule()),
  ]
}
