import BTLensTestSupport
import Foundation
import XCTest

/// Every AVDTP signalling message, AVRCP PDU and HFP AT line that Wireshark's tshark decodes in the
/// real headphone captures of ../shared/captures is on btlens' timeline at the same record (frame)
/// number, with the same signal, PDU or command. Skips without tshark or the captures.
final class ProfileConformanceTests: XCTestCase {
    static let captures = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/captures").path

    /// What tshark decodes: `FRAME avdtp signal=0x01 type=0`, `FRAME avrcp pdu=0x31`, `FRAME avrcp
    /// opcode=0x7c` (no vendor-dependent PDU), `FRAME hfp +BRSF`.
    private func tsharkItems(_ capture: String) throws -> [String]? {
        guard
            let lines = try runTshark([
                "-r", capture, "-Y", "btavdtp || btavrcp || bthfp", "-T", "fields", "-E", "occurrence=f",
                "-e", "frame.number", "-e", "btavdtp.signal_id", "-e", "btavdtp.message_type", "-e", "btavrcp.pdu_id",
                "-e", "btavrcp.opcode", "-e", "bthfp.at_cmd",
            ])
        else { return nil }
        var items: [String] = []
        for line in lines {
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count == 6 else { continue }
            if !c[1].isEmpty {
                items.append(
                    "\(c[0]) avdtp signal=\(Int(c[1].dropFirst(2), radix: 16) ?? -1) type=\(Int(c[2].dropFirst(2), radix: 16) ?? -1)"
                )
            }
            if !c[3].isEmpty {
                items.append("\(c[0]) avrcp pdu=\(Int(c[3].dropFirst(2), radix: 16) ?? -1)")
            } else if !c[4].isEmpty {
                items.append("\(c[0]) avrcp opcode=\(Int(c[4].dropFirst(2), radix: 16) ?? -1)")
            }
            if !c[5].isEmpty { items.append("\(c[0]) hfp \(c[5])") }
        }
        return items
    }

    /// The same from btlens' JSONL.
    private func btlensItems(_ capture: String) throws -> Set<String> {
        let run = try runCLI(["timeline", "--format", "jsonl", "--no-dissectors", capture])
        XCTAssertEqual(run.status, 0, run.stderr)
        let types = ["command": 0, "general_reject": 1, "accept": 2, "reject": 3]
        var items = Set<String>()
        for line in run.stdout.split(separator: "\n") {
            guard let e = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let record = e["record"] as? Int
            else { continue }
            switch e["type"] as? String {
            case "avdtp":
                items.insert(
                    "\(record) avdtp signal=\(e["signal"] as? Int ?? -1) type=\(types[e["message_type"] as? String ?? ""] ?? -1)"
                )
            case "avrcp":
                if let pdu = e["pdu"] as? Int {
                    items.insert("\(record) avrcp pdu=\(pdu)")
                } else if let opcode = e["opcode"] as? Int {
                    items.insert("\(record) avrcp opcode=\(opcode)")
                }
            case "hfp":
                items.insert("\(record) hfp \(e["command"] as? String ?? e["name"] as? String ?? "")")
            default: break
            }
        }
        return items
    }

    func testEverySignalPDUAndATLineTsharkDecodesIsOnTheTimeline() throws {
        var compared = 0
        for name in ["a2dp_motog2013_lghbs730_btsnoop_hci.log", "chsmartbulb_btsnoop_hci.log"] {
            let capture = Self.captures + "/" + name
            guard FileManager.default.fileExists(atPath: capture) else { throw XCTSkip("../shared/captures is absent") }
            guard let want = try tsharkItems(capture) else { throw XCTSkip("tshark is not installed") }
            let have = try btlensItems(capture)
            XCTAssertFalse(want.isEmpty, name)
            XCTAssertEqual(want.filter { !have.contains($0) }, [], name)
            compared += want.count
        }
        // 18 AVDTP, 18 AVRCP and 30 HFP in the Moto G capture; 9 AVDTP and 10 AVRCP in the bulb's.
        XCTAssertEqual(compared, 85)
    }
}
