import Foundation
import TestSupport
import Testing

/// How `composable` reads its command line (by hand, see `CommandShape`): help where asked,
/// and for everything it cannot read, `error: ...`, the usage, and exit status 64.
@Suite struct CommandLineParsingTests {
  static let runUsage =
    "Usage: composable run <feature> [--env <env> ...] [--uuid <uuid>] [--seed <seed>] "
    + "[--data <data>] [--wait <wait>] [--watch]\n"
    + "  See 'composable run --help' for more information.\n"

  func run(_ arguments: [String], input: String = "") throws -> Command.Outcome {
    try Command.run(arguments, input: input)
  }

  @Test func helpListsTheSubcommandsAndEachOnesOptions() throws {
    let root = try run(["--help"])
    #expect(root.status == 0)
    #expect(
      root.output.hasPrefix("OVERVIEW: Runs Composable-Architecture features written in Lua."))
    for name in ["run (default)", "repl", "replay", "test", "eval", "new"] {
      #expect(root.output.contains("\n  \(name) "), "\(name)")
    }
    let viaHelp = try run(["help", "run"])
    let viaFlag = try run(["run", "examples/counter/counter.lua", "-h"])
    #expect(viaHelp.status == 0 && viaFlag.status == 0)
    #expect(viaHelp.output == viaFlag.output)
    #expect(
      viaHelp.output.contains("  --wait <wait>           Seconds to wait for running effects"))
    #expect(viaHelp.output.contains("  --watch                 Reload the feature when"))
    // Every line of help fits 80 columns, except the usage line.
    for line in viaHelp.output.split(separator: "\n") where !line.hasPrefix("USAGE") {
      #expect(line.count <= 80, "\(line)")
    }
  }

  @Test func whatCannotBeReadIsAUsageErrorNamingIt() throws {
    let cases: [([String], String)] = [
      (["run"], "missing expected argument '<feature>'"),
      (["run", "a.lua", "b.lua"], "unexpected argument 'b.lua'"),
      (["run", "a.lua", "--bogus"], "unknown option '--bogus'"),
      (["run", "a.lua", "--dat", "x"], "unknown option '--dat' (did you mean '--data'?)"),
      (["run", "a.lua", "-data", "x"], "unknown option '-data' (did you mean '--data'?)"),
      (["run", "a.lua", "--hepl"], "unknown option '--hepl' (did you mean '--help'?)"),
      (["run", "a.lua", "--help=1"], "--help takes no value"),
      (["run", "a.lua", "--DATA", "x"], "unknown option '--DATA' (did you mean '--data'?)"),
      (["run", "a.lua", "--=x"], "unknown option '--=x'"),
      (["run", "a.lua", "--dat=x"], "unknown option '--dat=x' (did you mean '--data'?)"),
      (["run", "a.lua", "-x"], "unknown option '-x'"),
      (["run", "a.lua", "--wait"], "missing value for '--wait <wait>'"),
      (["run", "a.lua", "--watch=yes"], "--watch takes no value"),
      (
        ["run", "a.lua", "--wait", "-1"],
        "--wait: expected a number of seconds from 0 to 1e9, got -1"
      ),
      (["run", "a.lua", "--uuid", "random"], "--uuid: expected live or incrementing, got random"),
      (
        ["run", "a.lua", "--seed", "1e3"],
        "--seed: expected a whole number from 0 to 18446744073709551615, got 1e3"
      ),
    ]
    for (arguments, message) in cases {
      let outcome = try run(arguments)
      #expect(outcome.status == 64, "\(arguments)")
      #expect(outcome.errors == "error: \(message)\n" + Self.runUsage, "\(arguments)")
      #expect(outcome.output.isEmpty)
    }
    let test = try run(["test", "--output", "xml"])
    #expect(test.status == 64)
    #expect(test.errors.hasPrefix("error: --output: expected readable, tap or junit, got xml\n"))
    let help = try run(["help", "frob"])
    #expect(help.status == 64)
    #expect(
      help.errors
        == "error: unknown subcommand 'frob'\n  See 'composable --help' for the subcommands.\n")
  }

  /// `--name=value` and `--name value` read the same; a repeated option keeps every value; a
  /// word that names no subcommand is `run`'s feature; after `--`, a word is an argument.
  @Test func theFormsOfAnOptionAndTheDefaultSubcommand() throws {
    let outcome = try run(
      [
        "examples/counter/counter.lua", "--wait=0", "--env", "a=1", "--env=b=\"two\"",
        "--seed", "7", "--uuid=incrementing",
      ], input: "increment\n")
    #expect(outcome.status == 0, "\(outcome.errors)")
    #expect(outcome.output.hasPrefix("counter.lua loaded. State: { count = 0 }\n"))
    #expect(outcome.output.contains("+ count = 1"))
    let dashed = try run(["run", "--wait", "0", "--", "--looks-like-an-option.lua"])
    #expect(dashed.status == 1)
    #expect(dashed.errors.contains("--looks-like-an-option.lua did not load"))
  }

  /// What a new user gave by mistake gets a way out: an option's letters swapped, a test file
  /// run as a feature, a feature given to replay (each said only what failed).
  @Test func commonMistakesSayWhatWasMeant() throws {
    let swapped = try run(["run", "--evn", "x=1", "f.lua"])
    #expect(swapped.errors.hasPrefix("error: unknown option '--evn' (did you mean '--env'?)\n"))
    let directory = try makeTemporaryDirectory("mistakes")
    defer { try? FileManager.default.removeItem(at: directory) }
    let test = directory.appendingPathComponent("tally_test.lua")
    try #"local TestStore = require("composable.test").TestStore"#.write(
      to: test, atomically: false, encoding: .utf8)
    let ran = try Command.run(["run", test.path])
    #expect(ran.status == 1)
    #expect(
      ran.errors.hasSuffix(
        "note: \(test.path) is a test file: run it with composable test \(test.path)\n"),
      "\(ran.errors)")
    let feature = directory.appendingPathComponent("tally.lua")
    try "return { reduce = function() end }".write(to: feature, atomically: false, encoding: .utf8)
    let replayed = try Command.run(["replay", feature.path])
    #expect(replayed.status == 1)
    #expect(
      replayed.errors.contains(
        "tally.lua looks like a feature, not a session: replay takes a session file, as the "
          + "REPL's :save writes it"), "\(replayed.errors)")
  }
}
