// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "ComposableLua",
  products: [
    .library(name: "LuaKit", targets: ["LuaKit"]),
    .executable(name: "composable", targets: ["composable"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
  ],
  targets: [
    // Debian's liblua5.4 through pkg-config; `scripts/install-deps` installs it when missing.
    .systemLibrary(
      name: "CLua",
      pkgConfig: "lua5.4",
      providers: [.apt(["liblua5.4-dev"])]
    ),
    // What must be C: macro shims, the traceback handler, the instruction hook, the capped
    // allocator and the trampoline that raises Lua errors on behalf of Swift functions.
    .target(name: "LuaSupport", dependencies: ["CLua"]),
    .target(name: "LuaKit", dependencies: ["LuaSupport", "CLua"]),
    .executableTarget(
      name: "composable",
      dependencies: ["LuaKit", .product(name: "ArgumentParser", package: "swift-argument-parser")]
    ),
    .executableTarget(
      name: "Benchmarks",
      dependencies: ["LuaKit", "LuaSupport", "CLua"]
    ),
    .testTarget(name: "LuaKitTests", dependencies: ["LuaKit", "LuaSupport", "CLua"]),
  ],
  swiftLanguageModes: [.v6]
)
