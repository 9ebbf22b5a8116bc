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

/// The modules every feature can require.
let builtInModules = LuaModuleTable([
  "composable": composableLibrarySource,
  "composable.effect": effectLibrarySource,
])
