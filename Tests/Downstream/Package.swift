// swift-tools-version: 6.1
// A package that uses ComposableLua as the README's "Use it from your package" says:
// scripts/downstream-check builds and runs it, as an app that depends on this repository would.
import PackageDescription

let package = Package(
  name: "TodoApp",
  dependencies: [
    .package(name: "ComposableLua", path: "../.."),
    // For `@CasePathable` (the macro); ComposableLua itself needs only the macro-free core.
    .package(url: "https://github.com/pointfreeco/swift-case-paths", from: "1.10.0"),
  ],
  targets: [
    .executableTarget(
      name: "TodoApp",
      dependencies: [
        .product(name: "ComposableLua", package: "ComposableLua"),
        .product(name: "CasePaths", package: "swift-case-paths"),
      ],
      resources: [.copy("todos.lua")]
    ),
    // A test target as the README's "Testing a Lua feature from Swift" has one: through
    // ComposableLuaTesting, a TestStore's failures reach Swift Testing.
    .testTarget(
      name: "TodoAppTests",
      dependencies: [
        .product(name: "ComposableLua", package: "ComposableLua"),
        .product(name: "ComposableLuaTesting", package: "ComposableLua"),
      ],
      exclude: ["lua"]  // Lua tests, read where they are (the README's `exclude:`)
    ),
  ]
)
