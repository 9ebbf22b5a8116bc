import Foundation
import PackagePlugin

/// Compiles the Lua files a target embeds (`Lua/*.lua`, not the `.meta.lua` annotations) to
/// bytecode at build time, into `LuaBytecode.swift` in that target: `LuaBytecode.sandbox` for
/// `Lua/sandbox.lua`. Loading bytecode skips the parser, a sixth of what starting
/// `composable run` cost.
@main
struct LuaBytecodePlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
    guard let target = target as? SourceModuleTarget else { return [] }
    let files = target.sourceFiles
      .map(\.url)
      .filter { url in
        url.pathExtension == "lua" && !url.lastPathComponent.hasSuffix(".meta.lua")
          && url.deletingLastPathComponent().lastPathComponent == "Lua"
      }
      .sorted { $0.path < $1.path }
    guard !files.isEmpty else { return [] }
    let output = context.pluginWorkDirectoryURL.appendingPathComponent("LuaBytecode.swift")
    return [
      .buildCommand(
        displayName: "Compiling the Lua of \(target.name) to bytecode",
        executable: try context.tool(named: "lua-bytecode").url,
        arguments: [output.path] + files.map(\.path),
        inputFiles: files,
        outputFiles: [output])
    ]
  }
}
