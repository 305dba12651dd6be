import BTLensTestSupport
import Foundation
import XCTest

/// The real sniffer captures in ../shared/captures (LINKTYPE 256, pcap and pcapng) against tshark:
/// every frame's ATT opcodes in btlens' JSONL equal tshark's `btatt.opcode` for the same frame
/// number, except the frames btlens marks as retransmissions (the same SN again, unacknowledged),
/// whose payload tshark decodes a second time and btlens does not. Encrypted PDUs neither decodes.
final class SnifferTsharkTests: XCTestCase {
    private static let shared = RealCaptureConformanceTests.shared

    private struct Frames {
        var att: [Int: [Int]] = [:]
        var retransmissions: Set<Int> = []
    }

    private func btlens(_ path: String) throws -> Frames {
        let run = try runCLI(["timeline", path, "--format", "jsonl", "--no-dissectors"])
        XCTAssertEqual(run.status, 0, run.stderr)
        var out = Frames()
        for line in run.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard let record = object["record"] as? Int else { continue }
            if object["type"] as? String == "att", let opcode = object["opcode"] as? Int {
                out.att[record, default: []].append(opcode)
            }
            if object["type"] as? String == "ll", object["retransmission"] as? Bool == true {
                out.retransmissions.insert(record)
            }
        }
        return out
    }

    private func tshark(_ path: String) throws -> [Int: [Int]]? {
        guard
            let lines = try runTshark([
                "-r", path, "-Y", "btatt", "-T", "fields", "-e", "frame.number", "-e", "btatt.opcode",
            ])
        else { return nil }
        var out: [Int: [Int]] = [:]
        for line in lines {
            let parts = line.split(separator: "\t")
            guard parts.count == 2, let frame = Int(parts[0]) else { continue }
            out[frame] = parts[1].split(separator: ",").compactMap { Int($0.dropFirst(2), radix: 16) }
        }
        return out
    }

    /// bsniffhub's capture: 2 ATT PDUs before encryption starts (frame 50 repeats frame 49);
    /// crackle's: 38, and 3 retransmissions of LL control PDUs and empty ones.
    func testATTOpcodesPerFrameEqualTsharks() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: Self.shared.path), "../shared/captures is absent")
        let expected: [String: (att: Int, retransmitted: [Int])] = [
            "bsniffhub_sc-justworks-fragments-assembly.pcap": (att: 2, retransmitted: [50]),
            "crackle_le_secure_connections.pcapng": (att: 38, retransmitted: []),
        ]
        for (name, counts) in expected {
            let path = Self.shared.appendingPathComponent(name).path
            guard let theirs = try tshark(path) else { throw XCTSkip("tshark is not installed") }
            let ours = try btlens(path)
            XCTAssertEqual(ours.att.count, counts.att, name)
            XCTAssertEqual(theirs.keys.filter(ours.retransmissions.contains).sorted(), counts.retransmitted, name)
            XCTAssertEqual(ours.att, theirs.filter { !ours.retransmissions.contains($0.key) }, name)
        }
    }

    /// The bundled sniffer samples, frame by frame: every ATT PDU tshark decodes, btlens decodes at
    /// the same frame with the same opcode; the ones only btlens has are those it decrypted.
    func testTheSamplesATTEqualTsharksAndTheRestWasDecrypted() throws {
        for sample in SnifferSamples.all {
            let path = packageRoot.appendingPathComponent("Captures/\(sample.file)").path
            guard let theirs = try tshark(path) else { throw XCTSkip("tshark is not installed") }
            let run = try runCLI(["timeline", path, "--format", "jsonl", "--no-dissectors", "-v"] + sample.options)
            XCTAssertEqual(run.status, 0, run.stderr)
            var att: [Int: [Int]] = [:]
            var decrypted: Set<Int> = []
            var resent: Set<Int> = []
            for line in run.stdout.split(separator: "\n") {
                let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                guard let record = o["record"] as? Int else { continue }
                if o["type"] as? String == "att", let opcode = o["opcode"] as? Int {
                    att[record, default: []].append(opcode)
                }
                if o["decrypted"] as? Bool == true { decrypted.insert(record) }
                if o["retransmission"] as? Bool == true { resent.insert(record) }
            }
            XCTAssertFalse(att.isEmpty, sample.file)
            // tshark decodes a retransmission again; btlens shows it once, marked.
            XCTAssertEqual(
                att.filter { theirs[$0.key] != nil }, theirs.filter { !resent.contains($0.key) }, sample.file)
            let ours = Set(att.keys).subtracting(theirs.keys)
            XCTAssertTrue(ours.isSubset(of: decrypted), "\(sample.file): \(ours.sorted()) not decrypted")
            XCTAssertEqual(ours.isEmpty, sample.file.contains("plain"), sample.file)
        }
    }

    /// bsniffhub's example names its LTK in its file name: with it, btlens checks the MIC of every
    /// encrypted PDU and decodes the ATT exchange tshark cannot; before encryption both agree.
    func testBsniffhubsCaptureDecryptsWithTheLTKItsNameGives() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: Self.shared.path), "../shared/captures is absent")
        let path = Self.shared.appendingPathComponent("bsniffhub_sc-justworks-fragments-assembly.pcap").path
        let run = try runCLI([
            "timeline", path, "--format", "jsonl", "--no-dissectors", "--ltk", "BD27012E93C195F13B8F176FE84A2DED",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        var att: [Int] = []
        var ids: [String] = []
        for line in run.stdout.split(separator: "\n") {
            let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if o["type"] as? String == "att", let record = o["record"] as? Int { att.append(record) }
            if let id = o["id"] as? String { ids.append(id) }
            XCTAssertNotEqual(o["encrypted"] as? Bool, true, "an encrypted PDU left: \(line)")
        }
        XCTAssertEqual(att, [46, 49, 244, 247, 248, 251, 252, 255, 256, 259])
        XCTAssertEqual(ids, ["ll.key.not_derived", "ll.decrypted"])
        guard let theirs = try tshark(path) else { throw XCTSkip("tshark is not installed") }
        XCTAssertEqual(theirs.keys.sorted(), [46, 49, 50], "tshark decodes ATT only before encryption")
    }
}
