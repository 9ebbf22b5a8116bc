import ComposableLua
import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The runner's reports: TAP that a TAP consumer reads, JUnit XML that an XML parser reads.
@Suite struct LuaTestReportTests {
  static func results() async -> [LuaTestResult] {
    let runner = LuaTestRunner()
    let passing = await runner.run(file: repositoryRoot.appendingPathComponent("examples/counter/counter_test.lua"))
    let failing = await runner.run(file: FailingLuaTestsTests.file, filter: "wrong state")
    return passing + failing + [LuaTestResult(name: "later", file: "x_test.lua", line: 1, outcome: .pending, seconds: 0)]
  }

  @Test func tapHasAPlanAndOneLinePerTest() async {
    let results = await Self.results()
    let lines = LuaTestReport.tap(results).split(separator: "\n").map(String.init)
    #expect(lines[0] == "TAP version 13")
    #expect(lines[1] == "1..\(results.count)")
    let outcomes = lines.filter { $0.hasPrefix("ok ") || $0.hasPrefix("not ok ") }
    #expect(outcomes.count == results.count)
    #expect(outcomes.filter { $0.hasPrefix("not ok") } == ["not ok 4 - failing expects the wrong state"])
    #expect(outcomes.last == "ok 5 - later # SKIP pending")
    #expect(lines.last == "# 3 passed, 1 failed, 1 skipped")
    // The failure's YAML block holds the message, indented under the test.
    #expect(lines.contains(
      "    Tests/ComposableLuaTests/fixtures/failing/failing_test.lua:8: A state change does not "
        + "match expectation."))
  }

  final class JUnitCounter: NSObject, XMLParserDelegate {
    var suites = 0, cases = 0, failures = 0, skipped = 0
    var failureText = ""
    var inFailure = false
    var caseAttributes: [[String: String]] = []
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
      switch name {
      case "testsuite": suites += 1
      case "testcase":
        cases += 1
        caseAttributes.append(attributes)
      case "failure": failures += 1; inFailure = true
      case "skipped": skipped += 1
      default: break
      }
    }
    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
      if name == "failure" { inFailure = false }
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) {
      if inFailure { failureText += string }
    }
  }

  @Test func junitParsesAsXML() async throws {
    let xml = LuaTestReport.junit(await Self.results())
    let counter = JUnitCounter()
    let parser = XMLParser(data: Data(xml.utf8))
    parser.delegate = counter
    #expect(parser.parse(), "the JUnit report is not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")
    #expect(counter.suites == 3)
    #expect(counter.cases == 5)
    #expect(counter.failures == 1)
    #expect(counter.skipped == 1)
    #expect(counter.failureText.contains("− clicks = 2"))
  }

  /// A failure message holding XML's special characters reads back as it was written.
  @Test func junitEscapesWhatXMLWouldRead() throws {
    let message = #"a.lua:3: − s = "<b> & 'c'"\#n+ s = "]]>""#
    let xml = LuaTestReport.junit([LuaTestResult(
      name: "t <&>", file: "a.lua", line: 3, outcome: .failed([message]), seconds: 0)])
    let counter = JUnitCounter()
    let parser = XMLParser(data: Data(xml.utf8))
    parser.delegate = counter
    #expect(parser.parse())
    #expect(counter.failureText == message)
  }

  /// A test's name or file holding a newline, a tab or a carriage return reads back as it was:
  /// in an attribute, raw, a reader would turn each into a space.
  @Test func junitAttributesKeepLineBreaksAndTabs() throws {
    let name = "a\nb\tc\r\nd", file = "x\ny_test.lua"
    let xml = LuaTestReport.junit([LuaTestResult(
      name: name, file: file, line: 3, outcome: .failed(["one\ntwo"]), seconds: 0)])
    let counter = JUnitCounter()
    let parser = XMLParser(data: Data(xml.utf8))
    parser.delegate = counter
    #expect(parser.parse())
    #expect(counter.caseAttributes.first?["name"] == name)
    #expect(counter.caseAttributes.first?["classname"] == file)
  }

  /// Characters XML 1.0 has no place for (U+FFFE, U+FFFF, a control) are written as U+FFFD:
  /// the file parsed no more (an attacker's finding).
  @Test func junitReplacesWhatXMLCannotHold() throws {
    let xml = LuaTestReport.junit([LuaTestResult(
      name: "a\u{FFFE}b", file: "x_test.lua", line: 3,
      outcome: .failed(["bad \u{FFFF} \u{1} end"]), seconds: 0)])
    let counter = JUnitCounter()
    let parser = XMLParser(data: Data(xml.utf8))
    parser.delegate = counter
    #expect(parser.parse())
    #expect(counter.caseAttributes.first?["name"] == "a\u{FFFD}b")
    #expect(counter.failureText == "bad \u{FFFD} \u{FFFD} end")
  }

  /// A `#` in a test's name begins no TAP directive (a failed test named `x # TODO` read as
  /// passed), and a line break in it makes no line of its own.
  @Test func tapNamesAreOneLineWithNoDirective() throws {
    let tap = LuaTestReport.tap([
      LuaTestResult(name: "x # TODO later", file: "a_test.lua", line: 1, outcome: .failed(["m"]), seconds: 0),
      LuaTestResult(name: "y\nok 9 - z\\", file: "a_test.lua", line: 2, outcome: .passed, seconds: 0),
    ])
    let lines = tap.split(separator: "\n").map(String.init)
    #expect(lines.contains(##"not ok 1 - x \# TODO later"##))
    #expect(lines.contains(##"ok 2 - y\nok 9 - z\\"##))
    #expect(!lines.contains { $0.hasPrefix("ok 9") })
  }

  @Test func theReadableReportEndsWithTheSummaryLine() async {
    let report = LuaTestReport.readable(await Self.results())
    #expect(report.split(separator: "\n").last == "3 passed, 1 failed, 1 skipped")
  }
}
