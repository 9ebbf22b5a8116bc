import Composable
import Foundation

/// How a run is reported.
public enum LuaTestReport {
  /// A readable report, ending with `N passed, N failed`.
  public static func readable(_ results: [LuaTestResult]) -> String {
    // A name is one line: a line break in it wrote a line of its own, which could read as
    // another test that passed (`✓ ...` under a failing one).
    func line(_ name: String) -> String {
      name.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
    }
    var lines: [String] = []
    for result in results {
      switch result.outcome {
      case .passed: lines.append("✓ \(line(result.name))")
      case .pending: lines.append("- \(line(result.name)) (pending)")
      case let .failed(failures):
        lines.append("✗ \(line(result.name))")
        for failure in failures {
          lines.append(
            failure.split(separator: "\n", omittingEmptySubsequences: false)
              .map { "    " + $0 }.joined(separator: "\n"))
        }
      }
      // What the test printed, under it, marked apart from what the runner says.
      for printed in result.output {
        for line in printed.split(separator: "\n", omittingEmptySubsequences: false) {
          lines.append("    │ " + line)
        }
      }
    }
    lines.append(summary(results))
    return lines.joined(separator: "\n")
  }

  /// `N passed, N failed` (and `, N skipped` for pending tests).
  public static func summary(_ results: [LuaTestResult]) -> String {
    let passed = results.filter { $0.outcome == .passed }.count
    let pending = results.filter { $0.outcome == .pending }.count
    let failed = results.count - passed - pending
    return "\(passed) passed, \(failed) failed" + (pending > 0 ? ", \(pending) skipped" : "")
  }

  /// Test Anything Protocol, version 13.
  public static func tap(_ results: [LuaTestResult]) -> String {
    // A test's name is one line of the description, where `#` begins a directive: a failed test
    // named `... # TODO ...` read as passed, and a newline in a name made lines of its own.
    func description(_ name: String) -> String {
      name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "#", with: "\\#")
        .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
    }
    var lines = ["TAP version 13", "1..\(results.count)"]
    for (index, result) in results.enumerated() {
      let number = index + 1
      let name = description(result.name)
      switch result.outcome {
      case .passed: lines.append("ok \(number) - \(name)")
      case .pending: lines.append("ok \(number) - \(name) # SKIP pending")
      case let .failed(failures):
        lines.append("not ok \(number) - \(name)")
        lines.append("  ---")
        lines.append("  message: |")
        for failure in failures {
          for line in failure.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append("    " + line)
          }
        }
        lines.append("  ...")
      }
    }
    lines.append("# " + summary(results))
    return lines.joined(separator: "\n")
  }

  /// JUnit XML, one `testsuite` per file.
  public static func junit(_ results: [LuaTestResult]) -> String {
    // A character XML 1.0 has no place for (U+FFFE, U+FFFF, most controls) made the file one no
    // reader parses: written as U+FFFD.
    func escape(_ text: String) -> String {
      var scalars = String.UnicodeScalarView()
      for scalar in text.unicodeScalars {
        let value = scalar.value
        let allowed =
          value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
          || (0xE000...0xFFFD).contains(value) || value >= 0x10000
        scalars.append(allowed ? scalar : "\u{FFFD}")
      }
      return String(scalars).replacingOccurrences(of: "&", with: "&amp;")
        .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        .replacingOccurrences(of: "\"", with: "&quot;")
    }
    // In an attribute a reader turns a raw newline or tab into a space: written as references,
    // a test's name or file keeps them.
    func attribute(_ text: String) -> String {
      escape(text).replacingOccurrences(of: "\n", with: "&#10;")
        .replacingOccurrences(of: "\r", with: "&#13;").replacingOccurrences(of: "\t", with: "&#9;")
    }
    var xml = [#"<?xml version="1.0" encoding="UTF-8"?>"#, "<testsuites>"]
    var files: [String] = []
    for result in results where !files.contains(result.file) { files.append(result.file) }
    for file in files {
      let suite = results.filter { $0.file == file }
      let failures = suite.filter { if case .failed = $0.outcome { true } else { false } }.count
      let skipped = suite.filter { $0.outcome == .pending }.count
      let time = suite.reduce(0) { $0 + $1.seconds }
      xml.append(
        #"  <testsuite name="\#(attribute(file))" tests="\#(suite.count)" failures="\#(failures)" skipped="\#(skipped)" time="\#(String(format: "%.4f", time))">"#
      )
      for result in suite {
        let open =
          #"    <testcase name="\#(attribute(result.name))" classname="\#(attribute(file))" time="\#(String(format: "%.4f", result.seconds))""#
        switch result.outcome {
        case .passed: xml.append(open + "/>")
        case .pending: xml.append(open + "><skipped/></testcase>")
        case let .failed(messages):
          let text = messages.joined(separator: "\n\n")
          xml.append(open + ">")
          xml.append(
            #"      <failure message="\#(attribute(messages.first?.split(separator: "\n").first.map(String.init) ?? ""))">\#(escape(text))</failure>"#
          )
          xml.append("    </testcase>")
        }
      }
      xml.append("  </testsuite>")
    }
    xml.append("</testsuites>")
    return xml.joined(separator: "\n")
  }
}
