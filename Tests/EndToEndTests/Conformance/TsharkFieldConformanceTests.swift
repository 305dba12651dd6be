import BTLensTestSupport
import Foundation
import XCTest

/// Every field tshark decodes in the HCI commands and events, L2CAP signalling commands and SDP PDUs
/// of the real captures in ../shared/captures is in btlens' JSONL for the same record, under the key
/// `TsharkFieldNames` gives it, with the same number where both give one. Skips without tshark or
/// the captures.
final class TsharkFieldConformanceTests: XCTestCase {
    static let captures = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/captures").path

    /// The fields tshark shows, per frame: HCI's and SDP's at the top of their layer, L2CAP's inside
    /// each signalling command. Values are tshark's strings.
    private func tsharkFields(_ capture: String) throws -> [Int: [(String, String)]]? {
        guard
            let lines = try runTshark([
                "-r", capture, "-Y", "bthci_cmd || bthci_evt || btl2cap.cid == 1 || btl2cap.cid == 5 || btsdp",
                "-T", "json", "-J", "frame bthci_cmd bthci_evt btl2cap btsdp",
            ])
        else { return nil }
        let packets = try JSONSerialization.jsonObject(with: Data(lines.joined(separator: "\n").utf8)) as? [Any] ?? []
        var frames: [Int: [(String, String)]] = [:]
        for case let packet as [String: Any] in packets {
            guard let layers = (packet["_source"] as? [String: Any])?["layers"] as? [String: Any],
                let number = ((layers["frame"] as? [String: Any])?["frame.number"] as? String).flatMap(Int.init)
            else { continue }
            var fields: [(String, String)] = []
            for name in ["bthci_cmd", "bthci_evt", "btsdp"] {
                for case let layer as [String: Any] in [layers[name]].compactMap({ $0 }) {
                    for (k, v) in layer where !k.hasSuffix("_tree") { fields.append((k, v as? String ?? "")) }
                }
            }
            if let l2cap = layers["btl2cap"] as? [String: Any] {
                let commands = l2cap["btl2cap.command"].map { ($0 as? [Any]) ?? [$0] } ?? []
                for case let command as [String: Any] in commands { signalling(command, into: &fields) }
            }
            frames[number, default: []] += fields
        }
        return frames
    }

    /// A signalling command's fields, options' included (they are nested in tshark's tree).
    private func signalling(_ command: [String: Any], into fields: inout [(String, String)]) {
        for (k, v) in command where !k.hasSuffix("_tree") {
            if let nested = v as? [String: Any] { signalling(nested, into: &fields) }
            if !TsharkFieldNames.ignored.contains(k) { fields.append((k, v as? String ?? "")) }
        }
    }

    /// btlens' HCI, signalling and SDP events, merged per record.
    private func btlensEvents(_ capture: String) throws -> [Int: [String: Any]] {
        let run = try runCLI(["timeline", "--format", "jsonl", "--no-dissectors", capture])
        XCTAssertEqual(run.status, 0, run.stderr)
        var records: [Int: [String: Any]] = [:]
        for line in run.stdout.split(separator: "\n") {
            guard let e = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let record = e["record"] as? Int,
                ["hci.command", "hci.event", "l2cap.signaling", "sdp"].contains(e["type"] as? String ?? "")
            else { continue }
            records[record, default: [:]].merge(e) { a, _ in a }
        }
        return records
    }

    private func number(_ s: String) -> Int64? {
        s.hasPrefix("0x") ? Int64(s.dropFirst(2), radix: 16) : Int64(s)
    }

    func testEveryFieldTsharkDecodesIsInTheJSONL() throws {
        var compared = 0
        var missing: [String] = []
        var different: [String] = []
        let names = ["chsmartbulb_btsnoop_hci.log", "a2dp_motog2013_lghbs730_btsnoop_hci.log", "evenG2_test.pklg"]
        for name in names + ["isap_hci_dump.pklg"] {
            let capture = Self.captures + "/" + name
            guard FileManager.default.fileExists(atPath: capture) else { throw XCTSkip("../shared/captures is absent") }
            guard let frames = try tsharkFields(capture) else { throw XCTSkip("tshark is not installed") }
            let events = try btlensEvents(capture)
            for (frame, fields) in frames.sorted(by: { $0.key < $1.key }) {
                compared += 1
                let e = events[frame] ?? [:]
                for (field, value) in fields {
                    if TsharkFieldNames.ignored.contains(field) || TsharkFieldNames.undecodedByTshark.contains(field)
                        || field.hasPrefix("_ws.")
                    {
                        continue
                    }
                    let keys = TsharkFieldNames.key(field)?.split(separator: "|").map(String.init) ?? []
                    let present = keys.filter { e[$0] != nil }
                    guard !present.isEmpty else {
                        missing.append("\(name) #\(frame) \(field)")
                        continue
                    }
                    let isBit =
                        TsharkFieldNames.keys[field] == nil
                        && TsharkFieldNames.bitPrefixes.contains { field.hasPrefix($0) }
                    let numbers = present.compactMap { (e[$0] as? NSNumber)?.int64Value }
                    guard !isBit, let want = number(value), !numbers.isEmpty else { continue }
                    if !numbers.contains(want) { different.append("\(name) #\(frame) \(field)=\(value) \(present)") }
                }
            }
        }
        XCTAssertEqual(missing, [])
        XCTAssertEqual(different, [])
        // 2,665 HCI packets and 243 signalling or SDP ones (tshark 4.0.17).
        XCTAssertGreaterThanOrEqual(compared, 2_900)
    }
}
