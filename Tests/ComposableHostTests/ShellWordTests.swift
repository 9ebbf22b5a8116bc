import ComposableHost
import Foundation
import Testing

/// A path a message tells the user to type (`:save`'s `composable replay FILE`) reads back, in
/// a real shell, as the path itself: `:save -x.lua` told the user to run `composable replay
/// -x.lua`, an option, and a name with a space or a quote was two words or an open quote.
@Suite struct ShellWordTests {
  @Test(arguments: [
    "session.lua", "-x.lua", "--feature", "a b.lua", "it's.lua", "$HOME.lua", "`id`.lua",
    #"a"b.lua"#, "*.lua", "~x.lua", "a;b.lua", "a|b&c.lua", "ünï.lua", "new\nline.lua",
    "tab\there.lua", "a\\b.lua", "dir/sub dir/s.lua", "/abs/-x.lua", "!x.lua", "#x.lua",
    "x=1.lua", "(x).lua", "{a,b}.lua", "''", "",
  ])
  func aShellReadsTheWordBackAsThePath(path: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "printf '%s' " + path.shellWord]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    // A relative path that starts with `-` is named through `./`: the same file.
    let expected = path.hasPrefix("-") ? "./" + path : path
    #expect(output == expected)
    #expect(!path.shellWord.hasPrefix("-"))
  }
}
