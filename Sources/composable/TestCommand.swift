import ComposableHost
import ComposableLua
import Foundation

/// `composable test [paths]`: runs the Lua tests (`*_test.lua`) under the paths.
struct TestCommand: Command {
  static let shape = CommandShape(
    name: "test", abstract: "Run Lua tests (*_test.lua files) and report.",
    arguments: [
      .init(
        name: "paths",
        help: "Test files or directories to search (default: the current directory).",
        repeats: true)
    ],
    options: [
      .value("filter", help: "Only the tests whose names contain this."),
      .value("output", help: "readable, tap or junit. (default: readable)"),
    ])

  enum Output: String, CaseIterable {
    case readable, tap, junit
  }

  let paths: [String]
  let filter: String?
  let output: Output

  init(_ arguments: ParsedArguments) throws(UsageError) {
    paths = arguments.strings("paths")
    filter = arguments.string("filter")
    output = try arguments.choice("output", default: .readable)
  }

  /// Whether the process's current folder can be named (`getcwd` fails once it is deleted).
  static func currentFolderExists() -> Bool {
    guard let current = getcwd(nil, 0) else { return false }
    free(current)
    return true
  }

  func run() async throws {
    let runner = LuaTestRunner()
    // A shell may sit in a folder that was deleted: the kernel still follows `..` from it, but
    // no path can name a file from there, and a test found there could not be named or found
    // again.
    let relative = paths.isEmpty || paths.contains { !$0.hasPrefix("/") }
    if relative, !Self.currentFolderExists() {
      printError(
        "the current folder was deleted (or cannot be read), so relative paths cannot be "
          + "followed from it and no tests were run. To fix, cd to a folder that exists, or "
          + "give absolute paths")
      throw ExitStatus.failure
    }
    // A path that is not there is a mistake (a typo in CI would otherwise pass with no tests).
    for path in paths {
      var status = stat()
      guard stat(path, &status) != 0 else { continue }
      let code = errno
      // Not there; else the system's reason (a name too long, a link loop, a folder on the way
      // that cannot be searched), which "no such file" hid.
      let problem =
        code == ENOENT || code == ENOTDIR
        ? "no such file or folder" : "it cannot be read (\(String(cString: strerror(code))))"
      let meant = FileManager.default.fileExists(atPath: path + ".lua") ? path + ".lua" : nil
      printError(
        "\(path): \(problem), so no tests were run from it"
          + (meant.map { ". To fix, give its name whole: composable test \($0)" } ?? ""))
      throw ExitStatus.failure
    }
    // Each path must hold a test file: a folder with none (a wrong folder, a file misnamed)
    // would otherwise pass, as a run of no tests.
    var files: [URL] = []
    for path in paths.isEmpty ? ["."] : paths {
      let found = runner.discover([path])
      if found.isEmpty {
        let place =
          paths.isEmpty ? "the current folder (searched when no path is given)" : path
        printError(
          "\(place): no *_test.lua file under it, so no tests were run from it. To fix, name "
            + "a test file or a folder that holds one")
        throw ExitStatus.failure
      }
      files += found
    }
    // A file named twice, found under two paths given, or reached by two (a symlink), runs
    // once: known by the file it is, not by its name's text (which Swift compares by Unicode
    // equivalence, where é and e + U+0301 are two folders on Linux).
    var seen = Set<[UInt64]>()
    files = files.filter { file in
      var info = stat()
      guard stat(file.path, &info) == 0 else { return true }
      return seen.insert([UInt64(info.st_dev), UInt64(info.st_ino)]).inserted
    }
    var results: [LuaTestResult] = []
    for file in files {
      results += await runner.run(file: file, filter: filter)
    }
    switch output {
    case .readable: print(LuaTestReport.readable(results).terminalSafe)
    case .tap: print(LuaTestReport.tap(results).terminalSafe)
    // Control characters are no more valid in XML than welcome on a terminal.
    case .junit: print(LuaTestReport.junit(results).terminalSafe)
    }
    if results.contains(where: { if case .failed = $0.outcome { true } else { false } }) {
      throw ExitStatus.failure
    }
    // No test ran at all: a filter that matched none, or files that declare none.
    if results.isEmpty {
      let count = files.count == 1 ? "1 test file" : "\(files.count) test files"
      printError(
        filter.map { "no test's name contains \"\($0)\" (--filter), in \(count)" }
          ?? Self.notATestFile(files, named: paths)
          ?? "\(count) ran, and declared no test (describe/it)")
      throw ExitStatus.failure
    }
  }

  /// For one file named by hand that is no test file (`composable test todos.lua`: the feature,
  /// not its tests), what to say: where its tests would be. Named as the user named it
  /// (`paths`, the command's), when it was named alone; a symlink's tests are its target's.
  static func notATestFile(_ files: [URL], named paths: [String]) -> String? {
    guard files.count == 1, let file = files.first else { return nil }
    let fileName = file.lastPathComponent
    let stem = fileName.hasSuffix(".lua") ? String(fileName.dropLast(4)) : nil
    guard stem?.lowercased().hasSuffix("_test") != true, !fileName.hasSuffix("_test.lua") else {
      return nil
    }
    let given = paths.count == 1 ? paths[0] : file.path
    let shown = given.hasSuffix(fileName) ? given : file.path
    let problem =
      "\(shown) ran, and declared no test (describe/it): it is not a test file (their "
      + "names end in _test.lua)"
    guard let stem, !stem.isEmpty else { return problem }
    let beside = String(shown.dropLast(fileName.count)) + stem + "_test.lua"
    let manager = FileManager.default
    let tests = file.deletingLastPathComponent().appendingPathComponent(stem + "_test.lua")
    if manager.fileExists(atPath: tests.path) {
      return problem + ". To fix, run composable test \(shellWord(beside)), the test file beside it"
    }
    // A link to a feature elsewhere: the tests beside what it leads to.
    let target = file.resolvingSymlinksInPath()
    let targetTests = target.deletingPathExtension().path + "_test.lua"
    if target != file, manager.fileExists(atPath: targetTests) {
      return problem + ". To fix, run composable test \(shellWord(targetTests)), the test file "
        + "beside the file it leads to"
    }
    return problem + ". To fix, write its tests in \(shellWord(beside)) (describe/it; see the "
      + "README's \"Testing a Lua feature in Lua\")"
  }

  /// `path` as a shell reads it back: as it is when it holds only plain characters, else in
  /// single quotes.
  static func shellWord(_ path: String) -> String {
    let plain = path.unicodeScalars.allSatisfy {
      $0.isASCII
        && (CharacterSet.alphanumerics.contains($0) || "._/-+,:@".unicodeScalars.contains($0))
    }
    return plain ? path : "'" + path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }
}
