import Foundation
import XCTest

/// Arithmetic on values a capture gives (docs/limits.md, "Arithmetic on input"): each case here
/// killed btlens (SIGILL, arithmetic overflow) or printed a wrong number before it was bounded.
final class ArithmeticOnInputTests: XCTestCase {
    /// The session sample with the btsnoop timestamps of some records replaced (record number →
    /// raw i64 µs since year 0; btsnoop records are orig, incl, flags, drops as u32 BE, then the
    /// i64 BE timestamp: RFC 1761 as btsnoop uses it), written to a folder removed after the test.
    func sample(_ times: (_ original: [Int: Int64]) -> [Int: Int64]) throws -> String {
        var bytes = try Data(
            contentsOf: JSONContractTests.root.appendingPathComponent("Captures/ble_a5_session.btsnoop"))
        var offsets: [Int: Int] = [:]
        var original: [Int: Int64] = [:]
        var offset = 16
        while offset + 24 <= bytes.count {
            let included = bytes[offset + 4..<offset + 8].reduce(0) { $0 << 8 | Int($1) }
            offsets[offsets.count + 1] = offset
            original[offsets.count] = Int64(
                bitPattern: bytes[offset + 16..<offset + 24].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            offset += 24 + included
        }
        for (record, raw) in times(original) {
            let at = try XCTUnwrap(offsets[record])
            bytes.replaceSubrange(
                at + 16..<at + 24,
                with: (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: raw) >> (56 - 8 * $0)) })
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "btlens-arith-\(getpid())-\(name.hashValue)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("x.btsnoop").path
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    var dissectors: [String] { ["--dissectors", JSONContractTests.root.appendingPathComponent("Dissectors").path] }

    /// A request stamped at the end of time is answered 9e15 ms before it was sent, and every
    /// other command in 1 µs: the latency chart's x of that bar was Int(600 × -9e15 / 0.001), past
    /// Int's range, and `report` trapped. The bar is clamped to the chart; its title says the number.
    func testAReportDrawsALatencyFarOutsideTheChart() throws {
        let path = try sample { t in
            // #29 SetEQPreset → #30; #32 → #33, #38 → #41, #53 → #55 (the sample's pairs).
            [29: .max, 33: t[32]! + 1, 41: t[38]! + 1, 55: t[53]! + 1]
        }
        let html = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("x.html").path
        let run = try runCLI(["report", path, "-o", html] + dissectors, timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr)
        let page = try String(contentsOfFile: html, encoding: .utf8)
        XCTAssertTrue(
            page.contains("<title>min -9.159503780854738e+15, median -9.159503780854738e+15"),
            "the bar's title says the latency")
        XCTAssertTrue(page.contains("capture.time.absurd"), "the time it came from is said")
    }

    /// A record stamped in the year 292,276 converted to pcap: libpcap keeps the low 32 bits of its
    /// seconds, so it came back as 1971-03-23, silently. It is written as the latest time a pcap
    /// holds (as libpcap reads it: signed 32-bit seconds), and convert says so.
    func testConvertSaysATimeThePcapCannotHold() throws {
        let path = try sample { _ in [29: .max] }
        let pcap = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("x.pcap").path
        let run = try runCLI(["convert", path, "-o", pcap])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(
            run.stdout.hasSuffix("; 1 timestamp pcap cannot hold written as the nearest it can\n"), run.stdout)
        let lines = try runCLI(["timeline", pcap, "--format", "jsonl"]).stdout.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.contains(#""record":29,"time":"2038-01-19T03:14:07.999999Z""#) })
    }
}
