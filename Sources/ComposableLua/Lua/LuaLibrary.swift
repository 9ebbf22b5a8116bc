import Foundation
import LuaKit

/// The Lua library, from the `.lua` files beside this one, embedded in the binary (so the
/// executable stays one file) as text and as bytecode compiled at build time (`LuaBytecode`).
/// Each file says at its top what it offers.
enum LuaLibrarySource {
  /// `composable`: composing reducers (`combine`, `scope`, `if_let`, `for_each`, `on_change`,
  /// `persist`).
  static let composable = String(decoding: PackageResources.composable_lua, as: UTF8.self)
  /// `composable.effect`: effects as plain descriptions that the host turns into `Effect`s.
  static let effect = String(decoding: PackageResources.composable_effect_lua, as: UTF8.self)
  /// The trusted chunk behind Lua tests (`describe`/`it`, assertions, `TestStore`).
  static let test = LuaPrecompiledChunk(bytecode: LuaBytecode.composable_test)
}

/// The Lua library's modules by name, for tools that run features outside a host (the busted
/// comparison in the benchmarks, the library's own test under `lua5.4`).
public enum ComposableLuaLibrary {
  /// The modules every feature can require.
  public static let modules: [String: String] = [
    "composable": LuaLibrarySource.composable,
    "composable.effect": LuaLibrarySource.effect,
  ]

  /// `composable.journal` outside a host, where there are no transactions: plain tables. In a
  /// host the VM's own journaled tables replace it (`builtInPreloads`).
  public static let plainJournal = "return { table = function() return {} end }"

  /// The library's LuaLS annotations (`---@meta` files) by file name, for an editor to complete
  /// and check feature scripts: `composable new` writes them beside a new feature.
  public static let annotations: [String: String] = [
    "feature.meta.lua": String(decoding: PackageResources.feature_meta_lua, as: UTF8.self),
    "composable.meta.lua": String(decoding: PackageResources.composable_meta_lua, as: UTF8.self),
    "composable.effect.meta.lua": String(
      decoding: PackageResources.composable_effect_meta_lua, as: UTF8.self),
    "composable.json.meta.lua": String(
      decoding: PackageResources.composable_json_meta_lua, as: UTF8.self),
    "composable.test.meta.lua": String(
      decoding: PackageResources.composable_test_meta_lua, as: UTF8.self),
  ]
}

extension ComposableLuaLibrary {
  /// A sandbox as a feature has it: the library's modules (`composable`, `composable.effect`,
  /// `composable.json`), and the modules beside the script in `directory` (or those
  /// `moduleFiles` serves, noting each file).
  public static func featureSandbox(
    in vm: LuaVM, directory: URL?, print: @escaping (String) -> Void = { Swift.print($0) },
    moduleFiles: LuaModuleFiles? = nil
  ) throws(LuaError) -> LuaSandbox {
    var resolvers: [any LuaModuleResolver] = [builtInModules]
    if let moduleFiles {
      resolvers.append(moduleFiles)
    } else if let directory {
      resolvers.append(LuaModuleDirectories([directory]))
    }
    return try vm.makeSandbox(
      .init(
        print: print, modules: LuaModuleChain(resolvers: resolvers),
        preloaded: builtInPreloads(in: vm)))
  }
}

/// The modules every feature can require, as a resolver: each loads from its bytecode.
let builtInModules = {
  var table = LuaModuleTable(modules: libraryModules)
  table.alsoAllowed = builtInPreloadNames
  return table
}()

// The source as bytes, not `LuaLibrarySource`'s text: decoding ~60 KB of Lua as a String (and
// copying it back into bytes) at every start cost ~150,000 instructions for nothing a feature
// uses (it loads the bytecode).
private let libraryModules: [String: LuaModuleSource] = [
  "composable": LuaModuleSource(
    bytes: PackageResources.composable_lua,
    precompiled: LuaPrecompiledChunk(bytecode: LuaBytecode.composable),
    chunkName: "composable.lua"),
  "composable.effect": LuaModuleSource(
    bytes: PackageResources.composable_effect_lua,
    precompiled: LuaPrecompiledChunk(bytecode: LuaBytecode.composable_effect),
    chunkName: "composable.effect.lua"),
]
