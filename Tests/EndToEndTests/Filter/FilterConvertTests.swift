import BTLensTestSupport
import Foundation
import XCTest

/// `convert --filter`: the smaller capture holds the records of what the filter selects and what
/// they need, decodes to the same selected events in btlens, and in Wireshark holds the same frames
/// and the values that carry them.
final class FilterConvertTests: XCTestCase {
    private let samples = JSONContractTests.root.appendingPathComponent("Captures").path
    /// Keys that hold record numbers: the smaller capture numbers its records anew.
    private static let recordKeys: Set<String> = [
        "record", "response_to", "first_record", "opened_record", "detected_record", "request_record", "last_record",
    ]

    private func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(name)").path
    }

    /// The selected events as JSON objects without their record numbers.
    private func events(_ capture: String, _ expression: String) throws -> [JSON] {
        let run = try runCLI(["timeline", "--format", "jsonl", "-Y", expression, capture])
        return try run.stdout.split(separator: "\n").map { line in
            guard case .object(var o) = try JSONDecoder().decode(JSON.self, from: Data(line.utf8)) else { return .null }
            for k in Self.recordKeys { o[k] = nil }
            return .object(o)
        }
    }

    private func tshark(_ arguments: [String]) throws -> [String]? { try runTshark(arguments) }

    /// A long write after more ATT PDUs than `convert` keeps per connection (256): its Prepare and
    /// Execute Write records, the newest, are kept, and the smaller capture shows the same write.
    func testALongWriteAfterManyPDUsKeepsItsRecords() throws {
        var s = LESession()
        let h: UInt16 = 0x0040
        s.connect(handle: h, address: [1, 2, 3, 4, 5, 6])
        for i in 0..<300 { s.att(handle: h, .sent, [0x52, 0x20, 0x00, UInt8(i & 0xff)]) }
        let value = Array(repeating: UInt8(0x5c), count: 40)
        s.att(handle: h, .sent, [0x16, 0x20, 0x00, 0x00, 0x00] + value.prefix(20))
        s.att(handle: h, .received, [0x17, 0x20, 0x00, 0x00, 0x00] + value.prefix(20))
        s.att(handle: h, .sent, [0x16, 0x20, 0x00, 20, 0x00] + value.dropFirst(20))
        s.att(handle: h, .received, [0x17, 0x20, 0x00, 20, 0x00] + value.dropFirst(20))
        s.att(handle: h, .sent, [0x18, 0x01])
        s.att(handle: h, .received, [0x19])
        s.disconnect(handle: h)
        let original = temporary("long.btsnoop")
        let small = temporary("small.btsnoop")
        defer { for f in [original, small] { try? FileManager.default.removeItem(atPath: f) } }
        try Data(s.bytes).write(to: URL(fileURLWithPath: original))
        let expression = "gatt.long_write"
        let selected = try events(original, expression)
        XCTAssertEqual(selected.count, 1)
        let run = try runCLI(["convert", original, "-o", small, "-Y", expression])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try events(small, expression), selected)
    }

    func testSmallerCaptureDecodesToTheSameSelectedEvents() throws {
        for (file, expression) in [
            ("ble_a5_session.btsnoop", "a5 && command == 0x20"),
            ("ble_a5_session.btsnoop", "a5 && (response_to || fields.state == full)"),
            ("bredr_iap2_ea.btsnoop", "a5 || iap2.identification"),
            ("ble_a5_session.btsnoop", "fields.counters || command_name == OtaData"),
        ] {
            let original = samples + "/" + file
            let whole = temporary("whole.pcapng")
            let small = temporary("small.pcapng")
            defer { for f in [whole, small] { try? FileManager.default.removeItem(atPath: f) } }
            XCTAssertEqual(try runCLI(["convert", original, "-o", whole]).status, 0)
            let run = try runCLI(["convert", original, "-o", small, "-Y", expression])
            XCTAssertEqual(run.status, 0, run.stderr)
            let what = "\(file): \(expression)"
            let selected = try events(original, expression)
            XCTAssertFalse(selected.isEmpty, what)
            XCTAssertEqual(try events(small, expression), selected, what)
            let records = try runCLI(["stats", "--format", "json", small]).stdout
            let total = try runCLI(["stats", "--format", "json", original]).stdout
            XCTAssertNotEqual(records, total, "\(what): some records are left out")

            // Wireshark reads the same frames (time, length) as a subsequence of the whole capture's,
            // and the ATT values that carry the selected frames.
            guard
                let smallFrames = try tshark(["-r", small, "-T", "fields", "-e", "frame.time_epoch", "-e", "frame.len"]
                ),
                let wholeFrames = try tshark(["-r", whole, "-T", "fields", "-e", "frame.time_epoch", "-e", "frame.len"])
            else { throw XCTSkip("tshark is not installed") }
            var rest = wholeFrames[...]
            for f in smallFrames {
                guard let i = rest.firstIndex(of: f) else {
                    return XCTFail("\(what): \(f) is not in the whole capture")
                }
                rest = rest[(i + 1)...]
            }
            XCTAssertLessThan(smallFrames.count, wholeFrames.count, what)
            guard file.hasPrefix("ble") else { continue }
            // A frame may span values: the values of each handle, joined in order, hold it.
            let values =
                try tshark([
                    "-r", small, "-Y", "btatt.value", "-T", "fields", "-e", "btatt.handle", "-e", "btatt.value",
                ]) ?? []
            var joined: [String: String] = [:]
            for line in values {
                let parts = line.split(separator: "\t").map(String.init)
                if parts.count == 2 { joined[parts[0], default: ""] += parts[1] }
            }
            for case .object(let o) in selected {
                guard case .string(let payload)? = o["payload"] else { continue }
                XCTAssertTrue(
                    joined.values.contains { $0.contains(payload) }, "\(what): payload \(payload) in Wireshark's values"
                )
            }
        }
    }
}
