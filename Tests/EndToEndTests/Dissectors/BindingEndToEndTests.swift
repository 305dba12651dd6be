import BTLensCore
import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

@testable import BTLensDefinitions

/// `--decode-as` binds a definition where the capture holds no setup: an ATT handle (a whole-value
/// message by name), an RFCOMM server channel, a raw L2CAP channel (basic mode on BR/EDR, K-frames
/// on LE). btlens runs as a separate process on synthetic captures.
final class BindingEndToEndTests: XCTestCase {
    static let definition = """
        protocol: acme-band
        title: ACME fitness band
        bind:
          characteristics:
            - {uuid: 6e400002-b5a3-f393-e0a9-e50e24dcca9e, role: command}
            - {uuid: 6e400003-b5a3-f393-e0a9-e50e24dcca9e, role: event}
            - {uuid: fff1, framing: value, message: AncModeValue}
        framing:
          magic: 0xaa55
          header: [command, sequence, {length: u2le}]
          checksum: {algorithm: crc-16/ibm-3740, covers: after-magic, endian: be}
        enums:
          anc: {0: off, 1: noiseCancelling, 2: transparency}
        messages:
          - {id: 0x10, name: GetSteps, from: phone}
          - {id: 0x10, name: Steps, from: accessory, seq: [{id: steps, type: u4le}]}
          - {name: AncModeValue, seq: [{id: mode, type: u1, enum: anc}]}
        pairing: {match: sequence, response-command: same, timeout-ms: 500}
        """

    var folder: URL!
    var definitionPath: String { folder.appendingPathComponent("acme-band.yaml").path }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-binding-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.definition.write(toFile: definitionPath, atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    /// The definition's frames, encoded by its own framing (AA 55, command, sequence, u2le length,
    /// payload, CRC-16/IBM-3740 big-endian over what follows the magic).
    func frame(_ command: UInt8, _ sequence: UInt8, _ payload: [UInt8]) throws -> [UInt8] {
        let d = try DefinitionParser.parse(text: Self.definition, file: "acme-band.yaml")
        guard case .frames(let format) = d.framing else { throw XCTSkip("not framed") }
        return format.encode(command: UInt16(command), sequence: sequence, payload: payload)
    }

    func write(_ s: LESession, _ name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(s.bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The timeline's frames and diagnostics, without the time column.
    func timeline(_ arguments: [String]) throws -> [String] {
        let run = try runCLI(["--dissectors", definitionPath] + arguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stdout.split(separator: "\n").map { line in
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            return ([parts[0]] + parts.dropFirst(2)).joined(separator: " ")
        }.filter { $0.contains(" MSG ") || $0.contains(" !") && !$0.contains("dissectors.loaded") }
    }

    /// No discovery in the capture: handles bound by hand, one of them as a whole-value message by
    /// name, whose Read Response is decoded like its notification; a framed handle's Read Response
    /// is read as frames of its own.
    func testATTHandlesAndAWholeValueMessageByName() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        s.stream(handle: 0x40, attHandle: 0x25, .sent, try frame(0x10, 1, []), values: [20])
        s.stream(handle: 0x40, attHandle: 0x27, .received, try frame(0x10, 1, [0x10, 0x27, 0, 0]), values: [5, 20])
        s.stream(handle: 0x40, attHandle: 0x29, .received, [0x01], values: [1])
        s.att(handle: 0x40, .sent, [0x0a, 0x29, 0x00])
        s.att(handle: 0x40, .received, [0x0b, 0x02])
        s.att(handle: 0x40, .sent, [0x0a, 0x27, 0x00])
        s.att(handle: 0x40, .received, [0x0b] + (try frame(0x10, 2, [0x01, 0, 0, 0])))
        s.disconnect(handle: 0x40)
        let file = try write(s, "att.btsnoop")
        let bound = [
            "--decode-as", "att:0x0025=acme-band", "--decode-as", "att:0x0027=acme-band",
            "--decode-as", "att:0x0029=acme-band/AncModeValue",
        ]
        XCTAssertEqual(
            try timeline([file] + bound),
            [
                "#4 < 0x0040 MSG 0x0025 GetSteps (0x10) seq 1",
                "#6 > 0x0040 MSG 0x0027 Steps (0x10) seq 1 steps=10000 ← #4 in 2.5 ms",
                "#7 > 0x0040 MSG 0x0029 (fff1) AncModeValue mode=noiseCancelling",
                "#9 > 0x0040 MSG 0x0029 (fff1) AncModeValue mode=transparency",
                "#11 > 0x0040 MSG 0x0027 Steps (0x10) seq 2 steps=1",
                "#11 > 0x0040 !WARN a5.response.unsolicited: acme-band: Steps (0x10) sequence 2: no outstanding request it answers",
            ])
        let unknown = try runCLI(["--dissectors", definitionPath, file, "--decode-as", "att:0x0029=acme-band/Nope"])
        XCTAssertEqual(unknown.status, 2, unknown.stderr)
        XCTAssertTrue(
            unknown.stderr.contains(
                "--decode-as att:0x0029=acme-band/Nope: acme-band binds no whole value named 'Nope' (its whole values: AncModeValue)"
            ), unknown.stderr)
    }

    /// A definition of whole values only, bound to a handle without naming a message, would read
    /// its values as A5 frames: a usage error that names the messages to choose from.
    func testAWholeValueDefinitionNeedsItsMessageNamed() throws {
        let thermometer = folder.appendingPathComponent("thermo.yaml").path
        try """
        protocol: thermo
        bind: {characteristics: [{uuid: fff9, framing: value, message: Reading}]}
        messages: [{name: Reading, seq: [{id: centi_celsius, type: s2le}]}]
        """.write(toFile: thermometer, atomically: true, encoding: .utf8)
        var s = LESession()
        s.connect(handle: 0x40, address: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        let file = try write(s, "thermo.btsnoop")
        let run = try runCLI(["--dissectors", thermometer, file, "--decode-as", "att:0x0036=thermo"])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(
            run.stderr.contains(
                "--decode-as att:0x0036=thermo: thermo has no framed messages, only whole values (Reading): "
                    + "name one, att:0x0036=thermo/Reading"), run.stderr)
    }

    /// RFCOMM server channel 2 (DLCI 4) on a BR/EDR link, its SDP record not captured.
    func testAnRFCOMMChannel() throws {
        var s = LESession()
        s.connectBREDR(handle: 0x0d, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        // RFCOMM on PSM 3: our CID 0x0041, theirs 0x0071 (Core Vol 3 Part A §4.2, §4.3).
        s.l2cap(handle: 0x0d, .sent, cid: 0x0001, [0x02, 0x02, 0x04, 0x00, 0x03, 0x00, 0x41, 0x00])
        s.l2cap(
            handle: 0x0d, .received, cid: 0x0001,
            [0x03, 0x02, 0x08, 0x00, 0x71, 0x00, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00])
        let request = try frame(0x10, 7, [])
        // A frame cut across two RFCOMM frames.
        s.rfcommStream(handle: 0x0d, .sent, cid: 0x0071, dlci: 4, request, frames: [3, 20])
        s.rfcommStream(handle: 0x0d, .received, cid: 0x0041, dlci: 4, try frame(0x10, 7, [5, 0, 0, 0]))
        s.disconnect(handle: 0x0d)
        let file = try write(s, "rfcomm.btsnoop")
        XCTAssertEqual(
            try timeline([file, "--decode-as", "rfcomm:2=acme-band"]),
            [
                "#7 < 0x000d MSG RFCOMM 2 GetSteps (0x10) seq 7",
                "#8 > 0x000d MSG RFCOMM 2 Steps (0x10) seq 7 steps=5 ← #7 in 1.25 ms",
            ])
        // Without the binding, the channel's data is undecoded.
        XCTAssertEqual(try timeline([file]), [])
    }

    /// A dynamic CID with no signalling: basic-mode PDUs on BR/EDR, K-frames (the first of an SDU
    /// led by its length, Core Vol 3 Part A §3.4.3) on LE, an SDU cut across two K-frames.
    func testRawL2CAPChannels() throws {
        var bredr = LESession()
        bredr.connectBREDR(handle: 0x0d, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        let request = try frame(0x10, 3, [])
        bredr.l2cap(handle: 0x0d, .sent, cid: 0x0050, Array(request.prefix(4)))
        bredr.l2cap(handle: 0x0d, .sent, cid: 0x0050, Array(request.dropFirst(4)))
        bredr.l2cap(handle: 0x0d, .received, cid: 0x0051, try frame(0x10, 3, [9, 0, 0, 0]))
        bredr.disconnect(handle: 0x0d)
        let bredrFile = try write(bredr, "bredr.btsnoop")
        XCTAssertEqual(
            try timeline([bredrFile, "--decode-as", "l2cap:0x0050=acme-band", "--decode-as", "l2cap:0x0051=acme-band"]),
            [
                "#5 < 0x000d MSG CID 0x0050 GetSteps (0x10) seq 3",
                "#6 > 0x000d MSG CID 0x0051 Steps (0x10) seq 3 steps=9 ← #5 in 1.25 ms",
            ])
        var le = LESession()
        le.connect(handle: 0x40, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        let sdu = [UInt8(request.count), 0] + request
        le.l2cap(handle: 0x40, .sent, cid: 0x0041, Array(sdu.prefix(5)))
        le.l2cap(handle: 0x40, .sent, cid: 0x0041, Array(sdu.dropFirst(5)))
        le.disconnect(handle: 0x40)
        let leFile = try write(le, "le.btsnoop")
        XCTAssertEqual(
            try timeline([leFile, "--decode-as", "l2cap:0x0041=acme-band"]),
            [
                "#5 < 0x0040 MSG CID 0x0041 GetSteps (0x10) seq 3",
                "#8 > 0x0040 !NOTE gatt.discovery.none: 0x0040 closed (Connection Terminated By Local Host) before any ATT PDU: the app never reached discovery",
                "#8 < 0x0040 !WARN a5.request.unanswered: acme-band: GetSteps (0x10) sequence 3 sent at #5: "
                    + "no response before disconnection",
            ])
        let json = try runCLI([
            "--dissectors", definitionPath, leFile, "--decode-as", "l2cap:0x0041=acme-band", "--format", "jsonl",
        ])
        XCTAssertTrue(json.stdout.contains(#""cid":65,"framing":"acme-band","command":16"#), json.stdout)
        XCTAssertFalse(json.stdout.contains(#""psm""#), json.stdout)
        // A name no definition has is a usage error, in follow as in timeline.
        for command in [[], ["follow"]] {
            let unknown = try runCLI(
                command + ["--dissectors", definitionPath, leFile, "--decode-as", "l2cap:0x0041=nope"])
            XCTAssertEqual(unknown.status, 2, "\(command) \(unknown.stderr)")
            XCTAssertTrue(
                unknown.stderr.contains("--decode-as l2cap:0x0041=nope: no dissector named 'nope'"), unknown.stderr)
        }
    }

    /// `stats` counts the frames of every framing, and their bad checksums, per dissector.
    func testStatsCountBadChecksumsOfEveryFraming() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        s.stream(handle: 0x40, attHandle: 0x25, .sent, try frame(0x10, 1, []), values: [20])
        var bad = try frame(0x10, 1, [1, 0, 0, 0])
        bad[bad.count - 1] &+= 1
        s.stream(handle: 0x40, attHandle: 0x27, .received, bad, values: [20])
        s.disconnect(handle: 0x40)
        let file = try write(s, "stats.btsnoop")
        let bound = ["--decode-as", "att:0x0025=acme-band", "--decode-as", "att:0x0027=acme-band"]
        // The framing diagnostics keep their a5. ids: their message names the dissector.
        let lines = try timeline([file] + bound)
        XCTAssertTrue(
            lines.contains {
                $0.hasPrefix("#5 > 0x0040 !ERRO a5.checksum.bad: acme-band: command 0x10 sequence 1: checksum")
            },
            "\(lines)")
        let text = try runCLI(["stats", "--dissectors", definitionPath, file] + bound)
        XCTAssertTrue(
            text.stdout.contains("Frames:      2 acme-band (sent 1, received 1, bad checksum 1)\n"), text.stdout)
        let json = try runCLI(["stats", "--dissectors", definitionPath, file, "--format", "json"] + bound)
        XCTAssertTrue(
            json.stdout.contains(
                #""frames_by_dissector":{"acme-band":{"total":2,"sent":1,"received":1,"checksum_bad":1}}"#),
            json.stdout)
    }
}
