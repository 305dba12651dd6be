import BTLensCapture
import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest

/// Hostile capture-level input in sniffer captures, through the CLI: nRF Sniffer headers cut short
/// or lying about their lengths and version, a pseudo-header cut short, and times that repeat and
/// go back. Each is a diagnostic naming its record; nothing traps, and the packets are still read.
final class SnifferHostileTests: XCTestCase {
    /// An empty data PDU of the sample's first connection, its CRC zero.
    static let packet = SnifferCapture.le32(SnifferCapture.firstAccessAddress) + [0x01, 0x00, 0, 0, 0]

    private func run(_ link: PcapFileWriter.LinkType, extra: [[UInt8]]) throws -> [String] {
        var w = PcapFileWriter(link: link, layout: .pcap(nanoseconds: false))
        var records = SnifferCapture.records()
        records[5].timestamp = records[4].timestamp  // #6 at #5's time
        records[9].timestamp = Timestamp(microseconds: records[8].timestamp.microseconds - 2_000_000)  // #10 2 s back
        for r in records.prefix(12) { w.add(r) }
        for (i, bytes) in extra.enumerated() {
            w.add(packet: bytes, microseconds: records[11].timestamp.microseconds + Int64(i + 1) * 1250)
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sniffer-hostile-\(getpid()).pcap")
        try Data(w.bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let run = try runCLI(["timeline", url.path, "--no-dissectors", "--format", "jsonl"])
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stdout.split(separator: "\n").compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let id = object["id"] as? String, id.hasPrefix("capture."), let record = object["record"] as? Int,
                let message = object["message"] as? String
            else { return nil }
            return "#\(record) \(id): \(message)"
        }
    }

    func testNordicHeadersThatLieAndTimesThatGoBack() throws {
        let lying: [UInt8] = [0x00, 0xff, 0x00, 9, 1, 0, 0x06, 12, 0x03, 4, 60, 0, 0, 0, 0, 0, 0] + Self.packet
        let cut: [UInt8] = [0x00, 0x13, 0x00, 2, 1, 0]
        XCTAssertEqual(try run(.nordic, extra: [lying, cut]), Self.expectedNordic)
    }

    func testAPseudoHeaderCutShort() throws {
        XCTAssertEqual(try run(.leWithPseudoHeader, extra: [[5, 0xc1, 0, 0]]), Self.expectedPseudo)
    }

    /// #6 repeats #5's time: nothing to say. #10 goes 2 s back.
    static let backwards =
        "#10 capture.time.backwards: timestamp 2023-11-14T22:13:18.011250Z is 2.000000 s before record #9's"
        + " (2023-11-14T22:13:20.011250Z)"
    static let expectedNordic = [
        backwards,
        "#13 capture.air.header_mismatch: record 13: nRF Sniffer header says 255 bytes follow it, expected the record's 19",
        "#13 capture.air.header_mismatch: record 13: nRF Sniffer event header length 12, expected 10: read as 10",
        "#13 capture.air.header_mismatch: record 13: nRF Sniffer protocol version 9, expected at most 3: read as 3",
        "#14 capture.air.header_short: record 14: LINKTYPE 272 header needs 17 bytes, found 6",
    ]
    static let expectedPseudo = [
        backwards, "#13 capture.air.header_short: record 13: LINKTYPE 256 header needs 10 bytes, found 4",
    ]
}
