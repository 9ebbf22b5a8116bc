// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "ComposableLua",
  products: [
    // What an app depends on: `import ComposableLua` brings Composable and LuaKit with it.
    .library(name: "ComposableLua", targets: ["ComposableLua"]),
    // For a test target: `LuaTestFile`, a folder of `*_test.lua` files run by `swift test`.
    .library(name: "ComposableLuaTesting", targets: ["ComposableLuaTesting"]),
    // Hot reload (the file watcher and the swap) and sessions, for an app's own dev tools.
    .library(name: "ComposableHost", targets: ["ComposableHost"]),
    // The layers alone: a Lua embedding any Swift program can use, and the runtime without Lua.
    .library(name: "LuaKit", targets: ["LuaKit"]),
    .library(name: "Composable", targets: ["Composable"]),
    .executable(name: "composable", targets: ["composable"]),
    .executable(name: "search-server", targets: ["SearchDemo"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.0.0"),
    // Its macro-free core: `CaseKeyPath` and `CasePathable`, so that actions read as in TCA
    // (`Scope(state: \.child, action: \.child)`). An app adds `@CasePathable` from its
    // `CasePaths` product; this package builds no macros (no swift-syntax).
    .package(url: "https://github.com/pointfreeco/swift-case-paths", from: "1.10.0"),
    // Without its default FoundationNetworking trait: that would link URLSession, and with it
    // libcurl and its ~30 libraries, into every process at start (we open libcurl ourselves, at
    // the first request).
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.3.0", traits: []),
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.0"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.4.0"),
    .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
  ],
  targets: [
    // Debian's Lua 5.4, linked from its static archive (module.modulemap): the Lua that runs a
    // feature is the one it was built with (so the library's bytecode, compiled at build time,
    // matches it), calls into it are direct rather than through the PLT (-9% per counter
    // action), and starting resolves no Lua symbols. `scripts/install-deps` installs it.
    .systemLibrary(
      name: "CLua",
      providers: [.apt(["liblua5.4-dev"])]
    ),
    // What must be C: macro shims, the traceback handler, the instruction hook and its
    // watchdog, the capped allocator, the trampoline that raises Lua errors on behalf of Swift
    // functions, the transactional state proxies, and the library functions written again to
    // charge their work (Libraries.c lists them).
    .target(name: "LuaSupport", dependencies: ["CLua"]),
    // The sandbox's bootstrap is a Lua file, compiled to bytecode at build time.
    .target(
      name: "LuaKit", dependencies: ["LuaSupport", "CLua"],
      plugins: ["LuaBytecodePlugin"]),
    // Compiles a target's `Lua/*.lua` files into a `LuaBytecode` enum at build time, with the
    // Lua the package links: a process loads the library's chunks without parsing them.
    // It finds Lua through pkg-config (`CLuaInstalled`): every build of the library builds it
    // first, so a machine without Lua's headers gets SwiftPM's hint naming the package to
    // install (`apt-get install liblua5.4-dev`) before any compiler error.
    .executableTarget(
      name: "lua-bytecode", dependencies: ["CLuaInstalled"], path: "Sources/LuaBytecodeCompiler"),
    // Lua 5.4 as pkg-config finds it (`lua5.4.pc`), for the build-time tool only: its libraries
    // are the shared ones, which the runtime does not link (CLua).
    .systemLibrary(
      name: "CLuaInstalled", pkgConfig: "lua5.4",
      providers: [.apt(["liblua5.4-dev"]), .brew(["lua@5.4"])]
    ),
    .plugin(
      name: "LuaBytecodePlugin", capability: .buildTool(), dependencies: ["lua-bytecode"]),
    // The C that drives libcurl for the live HTTP client (its options are set through a
    // variadic function, and its callbacks run mid-transfer). libcurl is opened at the first
    // request, not linked, and declared by CurlSupport itself (CurlABI.h): building needs no
    // libcurl headers.
    .target(name: "CurlSupport"),
    // libcurl's own header, for the test that checks CurlABI.h against it (CurlABICheck).
    .systemLibrary(
      name: "CCurl", pkgConfig: "libcurl",
      providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
    ),
    .target(name: "CurlABICheck", dependencies: ["CCurl"], path: "Tests/Support/CurlABICheck"),
    // The runtime: reducers, effects, the Store and the TestStore. No Lua.
    .target(
      name: "Composable",
      dependencies: [
        "CurlSupport",
        .product(name: "CasePathsCore", package: "swift-case-paths"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // Lua features: loading, state kept in Lua, effects from Lua, on the Composable runtime.
    .target(
      name: "ComposableLua",
      dependencies: [
        "LuaKit", "Composable",
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ],
      // The Lua library as Lua files, embedded in the binary (the executable stays one file):
      // compiled at build time (LuaBytecodePlugin), and as text for tools that run it outside
      // a host.
      resources: [
        .embedInCode("Lua/composable.lua"), .embedInCode("Lua/composable.effect.lua"),
        // LuaLS annotations of the library, which `composable new` writes beside a feature.
        .embedInCode("Lua/types/feature.meta.lua"),
        .embedInCode("Lua/types/composable.meta.lua"),
        .embedInCode("Lua/types/composable.effect.meta.lua"),
        .embedInCode("Lua/types/composable.json.meta.lua"),
        .embedInCode("Lua/types/composable.test.meta.lua"),
      ],
      plugins: ["LuaBytecodePlugin"]
    ),
    // Lua tests as cases of Swift tests (it imports Testing: for test targets only). It links
    // IssueReportingTestSupport, without which a TestStore's failures print a warning and the
    // test passes: a test target that depends on it has its failures reach Swift Testing.
    .target(
      name: "ComposableLuaTesting",
      dependencies: [
        "ComposableLua",
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]),
    // The REPL's terminal: Ctrl-C at its prompt, in C because a signal handler must be, and
    // Debian's libedit for line editing, opened with dlopen when first needed.
    .target(name: "TerminalSupport"),
    // What the host does around a feature: the REPL session, hot reload, reading typed Lua.
    .target(name: "ComposableHost", dependencies: ["LuaKit", "Composable", "ComposableLua"]),
    .executableTarget(
      name: "composable",
      dependencies: [
        "LuaKit", "Composable", "ComposableLua", "ComposableHost", "TerminalSupport",
      ]
    ),
    // The search example's answers, and its demo server on FlyingFox (`search-server`), which
    // is not part of `composable`.
    .target(name: "SearchAnswers"),
    .executableTarget(
      name: "SearchDemo",
      dependencies: [
        "SearchAnswers",
        .product(name: "FlyingFox", package: "FlyingFox"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // The tests' fixture HTTP server on 127.0.0.1 (see its header for why it is not a library).
    .target(name: "LocalServer", dependencies: ["SearchAnswers"], path: "Tests/Support/LocalServer"),
    // What a test that starts a process with posix_spawn closes in it.
    .target(name: "ChildProcesses", path: "Tests/Support/ChildProcesses"),
    .executableTarget(
      name: "Benchmarks",
      dependencies: [
        "LuaKit", "LuaSupport", "CLua", "Composable", "ComposableLua", "ComposableHost",
      ]
    ),
    // Lua 5.4.4's own tests, statement by statement, under plain `lua5.4`, in the sandbox and
    // in a feature's state (`swift run lua-conformance`; the test files are not part of the
    // package: ../shared/lua-5.4.4-testes, or --testes DIR).
    .executableTarget(
      name: "lua-conformance", dependencies: ["LuaKit", "ComposableLua"],
      path: "Sources/Conformance", exclude: ["statements.lua", "plain.lua", "harness.lua"]),
    // A seeded generator the randomized tests share.
    .target(name: "SeededRandom", path: "Tests/Support/SeededRandom"),
    .target(
      name: "LuaDataGenerators", dependencies: ["LuaKit", "SeededRandom"],
      path: "Tests/Support/LuaDataGenerators"),
    .testTarget(
      name: "LuaKitTests",
      dependencies: ["LuaKit", "LuaSupport", "CLua", "SeededRandom", "LuaDataGenerators"]),
    // What the tests of the libraries above LuaKit share: fixtures' places, a TestStore over
    // source, temporary folders, hostile paths.
    .target(
      name: "TestSupport", dependencies: ["Composable", "ComposableLua", "LuaKit"],
      path: "Tests/Support/TestSupport"),
    .testTarget(
      name: "ComposableLuaTests",
      dependencies: [
        "ComposableLua", "ComposableLuaTesting", "Composable", "LuaKit", "LocalServer",
        "SeededRandom", "LuaDataGenerators", "TestSupport",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ],
      // Lua test files and fixtures, read by path (and run by `swift test` through the runner).
      exclude: ["fixtures", "lua"]
    ),
    // The host: the REPL, sessions and the tests written from them, hot reload.
    .testTarget(
      name: "ComposableHostTests",
      dependencies: [
        "ComposableHost", "ComposableLua", "Composable", "LuaKit", "LocalServer", "TestSupport",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ],
      exclude: ["fixtures"]
    ),
    // The executables as a user runs them (`composable`, `search-server`), built beside the
    // tests by `swift build --build-tests`.
    .testTarget(
      name: "CommandTests",
      dependencies: [
        "ComposableLua", "Composable", "LuaKit", "TestSupport", "ChildProcesses",
        .product(name: "Clocks", package: "swift-clocks"),
      ]
    ),
    .testTarget(
      name: "ComposableTests",
      dependencies: [
        "Composable", "LocalServer", "SeededRandom", "CurlABICheck", "ChildProcesses",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "Logging", package: "swift-log"),
        // Lets IssueReporting record failures into Swift Testing.
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
