import BTLensTestSupport
import Foundation
import XCTest

/// A user's regular expression has a bounded cost per match (docs/limits.md, "Regular
/// expressions"), and a filter's strings mean what they say: each run as the CLI, in a process
/// limited to 1 GiB of address space and 30 s. With Swift's `Regex`, `(a+)+$` took 53 s on one
/// line of 128 characters.
final class HostileRegexTests: XCTestCase {
    static let captures = packageRoot.appendingPathComponent("Captures").path
    static let memoryLimit = 1 << 30
    static let budgetWarning = "a match ran past the budget of 1000000 steps and counts as not found"

    /// The CLI's run, and how long it took.
    private func run(_ arguments: [String]) throws -> (CLIRun, Duration) {
        let start = ContinuousClock.now
        let r = try runCLI(arguments, timeout: 30, memoryLimit: Self.memoryLimit)
        return (r, ContinuousClock.now - start)
    }

    /// The bundled logcat with `count` lines of `length` `a`s and a `!`, which `(a+)+$`
    /// backtracks over.
    private func hostileLog(lines count: Int = 1, length: Int = 128) throws -> String {
        let logcat = try String(contentsOfFile: Self.captures + "/ble_app_log.logcat.txt", encoding: .utf8)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-regex-\(UUID()).log").path
        let line = "11-14 23:13:20.160  4321  4390 D AuroraBLE: " + String(repeating: "a", count: length) + "!\n"
        try (logcat + String(repeating: line, count: count)).write(toFile: path, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func testANormalRunFitsTheLimits() throws {
        let (r, _) = try run(["timeline", Self.captures + "/ble_a5_faults.btsnoop", "-Y", "message matches \"d\""])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stdout.isEmpty)
    }

    func testAFilterPatternThatBacktracksEndsAtItsBudget() throws {
        let capture = Self.captures + "/ble_a5_faults.btsnoop"
        let (quick, quickTime) = try run(["timeline", capture, "-Y", #"message matches "(.*)*b""#])
        XCTAssertEqual(quick.status, 0, quick.stderr)
        XCTAssertLessThan(quickTime, .seconds(10))
        // Exponential on any text: every message runs into the budget, said once.
        let (r, time) = try run(["timeline", capture, "-Y", #"message matches "^(.|.)*[^\\s\\S]""#])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(time, .seconds(20))
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(r.stderr.components(separatedBy: Self.budgetWarning).count, 2, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix(#"btlens: warning: the filter's matches "^(.|.)*[^\s\S]": "#), r.stderr)
    }

    func testAnAppLogFilterThatBacktracksEndsAtItsBudget() throws {
        let log = try hostileLog()
        let (r, time) = try run([
            "timeline", Self.captures + "/ble_app_log.btsnoop", "--app-log", log, "--app-log-filter", "(a+)+$",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(time, .seconds(20))
        XCTAssertTrue(Self.isWarning(r.stderr, "--app-log-filter \"(a+)+$\""), r.stderr)
        XCTAssertFalse(r.stdout.contains("aaaa"), r.stdout)
    }

    /// Every line runs past the budget: each spends it, 11 to 16 ms in PCRE2's interpreter (2,000
    /// lines took 21 s), about 2 ms as JIT code (4 s); the warning says what one took.
    func testManyLinesPastTheBudgetCostTheBudgetEach() throws {
        let log = try hostileLog(lines: 2000, length: 30)
        let capture = Self.captures + "/ble_app_log.btsnoop"
        let (r, time) = try run(["timeline", capture, "--app-log", log, "--app-log-filter", "(a+)+$"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(time, .seconds(12))
        XCTAssertTrue(Self.isWarning(r.stderr, "--app-log-filter \"(a+)+$\""), r.stderr)
        XCTAssertFalse(r.stdout.contains("aaaa"), r.stdout)
        let format = #"^(?<time>\S+ \S+) +\d+ +\d+ (?<level>\w) (?<tag>\w+): (?<message>(a+)+$|[^a].*)"#
        let (f, formatTime) = try run(["timeline", capture, "--app-log", log, "--app-log-format", format])
        XCTAssertEqual(f.status, 0, f.stderr)
        XCTAssertLessThan(formatTime, .seconds(12))
        XCTAssertTrue(Self.isWarning(f.stderr, "--app-log-format \"\(format)\""), f.stderr)
    }

    /// The one warning, for `use`, with the time its match took (`this one took 1.8 ms`).
    static func isWarning(_ stderr: String, _ use: String) -> Bool {
        let head = "btlens: warning: \(use): \(budgetWarning)\(advice)"
        guard stderr.hasPrefix(head), stderr.hasSuffix(tail), stderr.components(separatedBy: "\n").count == 2 else {
            return false
        }
        let took = stderr.dropFirst(head.count).dropLast(tail.count)
        return took.wholeMatch(of: /\d+\.\d/) != nil
    }

    func testAnAppLogFormatThatBacktracksEndsAtItsBudget() throws {
        let log = try hostileLog()
        let format = #"^(?<time>\S+ \S+) +\d+ +\d+ (?<level>\w) (?<tag>\w+): (?<message>(a+)+$|[^a].*)"#
        let (r, time) = try run([
            "timeline", Self.captures + "/ble_app_log.btsnoop", "--app-log", log, "--app-log-format", format,
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(time, .seconds(20))
        XCTAssertTrue(Self.isWarning(r.stderr, "--app-log-format \"\(format)\""), r.stderr)
        // The other lines are read by the format: the log is aligned and shown.
        XCTAssertTrue(r.stdout.contains("TX write fff3: a5 01 20 01 00 01 01 c9 = #6"), r.stdout)
    }

    static let advice = " (said once, for every such match; each spends the budget: this one took "
    static let tail = " ms, more on a longer line); nested repetition such as (a+)+ can backtrack without end\n"

    func testAnUnknownEscapeIsRefusedWithACaret() throws {
        let (r, _) = try run(["timeline", Self.captures + "/ble_a5_faults.btsnoop", "-Y", #"message matches "\d""#])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(
            r.stderr.contains(
                """
                invalid filter: \\d is not a valid character escape sequence
                  message matches "\\d"
                                   ^~
                """), r.stderr)
    }

    func testARegexEscapeReachesTheRegex() throws {
        let capture = Self.captures + "/ble_a5_faults.btsnoop"
        var outputs: [String] = []
        for pattern in [#""\\d""#, #"r"\d""#, #""[0-9]""#] {
            let (r, _) = try run(["timeline", capture, "--format", "jsonl", "-Y", "message matches \(pattern)"])
            XCTAssertEqual(r.status, 0, r.stderr)
            outputs.append(r.stdout)
        }
        XCTAssertFalse(outputs[2].isEmpty)
        XCTAssertEqual(outputs[0], outputs[2])
        XCTAssertEqual(outputs[1], outputs[2])
        // The letter d is another filter.
        let (d, _) = try run(["timeline", capture, "--format", "jsonl", "-Y", #"message matches "d""#])
        XCTAssertNotEqual(d.stdout, outputs[2])
    }

    func testMatchesOnANumberIsRefused() throws {
        let (r, _) = try run(["timeline", Self.captures + "/ble_a5_faults.btsnoop", "-Y", #"sequence matches "1""#])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(
            r.stderr.contains(
                """
                invalid filter: 'matches' looks into strings and bytes; sequence is not one
                  sequence matches "1"
                  ^~~~~~~~
                """), r.stderr)
    }
}
