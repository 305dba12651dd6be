import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// Header fields in bits of a word, length adjustments, checksum ranges, fixed-size frames and
/// checksums at the end of whole values, in btlens and in the exported plugin: both must frame the
/// same messages and call the same ones bad.
extension WiresharkExportTests {
    static let packedDefinitions = [
        // Galaxy Buds: FD, u16le (10-bit length of id + payload + CRC, flags in bits 12-13), id,
        // payload, CRC-16/XMODEM over id and payload, DD.
        "buds-like.yaml": """
        protocol: buds-like
        bind:
          characteristics:
            - {uuid: fff1, role: command}
        framing:
          magic: 0xfd
          header: [{word: u2le, fields: {length: 0x03ff, flags: 0x3000}}, command]
          length-counts: after-length
          length-adjust: 1
          checksum: {algorithm: crc-16/xmodem, covers: [command, payload], endian: le}
          end: 0xdd
        flags: {0x01: response, 0x02: fragment}
        messages:
          - {id: 0x61, name: StatusUpdated, seq: [{id: data, type: bytes}]}
        """,
        // Govee: 20-byte values, 33 or AA first, XOR of the first 19 bytes last.
        "govee-like.yaml": """
        protocol: govee-like
        bind:
          characteristics:
            - {uuid: fff2, role: command}
        framing: {value: event-byte, checksum: {algorithm: xor8, covers: value}}
        messages:
          - {id: 0x33, name: Command, seq: [{id: op, type: u1}, {id: args, type: bytes}]}
        """,
        // Fixed 8-byte frames on a stream: 7E, a word of sequence (4 bits) and command (12 bits), sum8.
        "fixed-like.yaml": """
        protocol: fixed-like
        bind:
          characteristics:
            - {uuid: fff3, role: command}
        framing:
          magic: 0x7e
          header: [{word: u2be, fields: {sequence: 0xf000, command: 0x0fff}}]
          size: 8
          checksum: sum8
        messages:
          - {id: 0x123, name: Ping, seq: [{id: data, type: bytes}]}
        """,
        // A length of the header and payload; a CRC-16 over the header only, after the payload.
        "header-sum-like.yaml": """
        protocol: header-sum-like
        bind:
          characteristics:
            - {uuid: fff4, role: command}
            - {uuid: fff5, framing: {value: whole, checksum: {algorithm: sum16, covers: value, endian: le}}, message: Level}
        framing:
          magic: 0xa5
          header: [length, command]
          length-counts: header-payload
          checksum: {algorithm: crc-16/arc, covers: {from: magic, to: command}, endian: le}
        messages:
          - {id: 0x09, name: Data, seq: [{id: data, type: bytes}]}
          - {name: Level, seq: [{id: level, type: u2le}]}
        """,
        // SLIP with an xor8: junk at the stream's start with no END before it is no frame.
        "slip-like.yaml": """
        protocol: slip-like
        bind:
          characteristics:
            - {uuid: fff6, role: command}
        framing: {delimiter: slip, header: [command], checksum: xor8}
        messages:
          - {id: 0x07, name: Seven, seq: [{id: data, type: bytes}]}
        """,
        // A text preamble once before 01 FE 00 00 frames (as Chsmartbulb's lamps send one).
        "bulb-like.yaml": """
        protocol: bulb-like
        bind:
          characteristics:
            - {uuid: fff7, role: command}
        framing: {magic: 0x01fe0000, header: [command, length], checksum: sum8, preamble: BT-READY}
        messages:
          - {id: 0x21, name: Light, seq: [{id: data, type: bytes}]}
        """,
        // ESP BluFi: no magic, a checksum where flag 0x02 says, messages in frames flagged 0x10.
        "blufi-like.yaml": """
        protocol: blufi-like
        bind:
          characteristics:
            - {uuid: fff8, role: command}
        framing:
          magic: none
          header: [command, flags, sequence, length]
          checksum: {algorithm: crc-16/genibus, covers: {from: sequence, to: payload}, endian: le, flag: 0x02}
          more-follows: {flag: 0x10, total: u2le}
        messages:
          - {id: 0x08, name: SetOpMode, seq: [{id: mode, type: u1}]}
          - {id: 0x09, name: StationSSID, seq: [{id: ssid, type: str}]}
        """,
    ]

    /// Discovery of fff1 to fff8, then a good and a bad message of each, cut into small values.
    private func packedCapture(_ formats: [String: FrameFormat]) -> (bytes: [UInt8], bad: [Int]) {
        var s = LESession()
        let h: UInt16 = 0x0040
        s.connect(handle: h, address: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        for (i, uuid) in [UInt16(0xfff1), 0xfff2, 0xfff3, 0xfff4, 0xfff5, 0xfff6, 0xfff7, 0xfff8].enumerated() {
            let declaration = UInt8(0x10 + 2 * i)
            s.att(handle: h, .sent, [0x08, declaration, 0x00, 0xff, 0xff, 0x03, 0x28])
            s.att(
                handle: h, .received,
                [0x09, 7, declaration, 0x00, 0x1a, declaration + 1, 0x00, UInt8(uuid & 0xff), UInt8(uuid >> 8)])
        }
        var bad: [Int] = []
        for (name, at, command) in [("buds-like", UInt16(0x11), UInt16(0x61)), ("fixed-like", 0x15, 0x123)] {
            guard let f = formats[name] else { continue }
            // A good frame, junk, a good frame with the flag bits set, then one with its checksum changed.
            var broken = f.encode(command: command, sequence: 2, payload: [0x01, 0x64])
            broken[broken.count - 1 - f.end.count] ^= 0x01
            let bytes =
                f.encode(command: command, sequence: 0, payload: [0x01, 0x64]) + [0x00, 0x11]
                + f.encode(command: command, sequence: 1, flags: 0x03, payload: [0x02]) + broken
            let records = s.stream(handle: h, attHandle: at, .sent, bytes, values: Array(repeating: 5, count: 10))
            bad.append(records.last ?? 0)
        }
        if let f = formats["header-sum-like"] {
            // The payload is no part of the checksum: changing it leaves the frame good.
            var other = f.encode(command: 0x09, payload: [0x10, 0x20])
            other[3] = 0x11
            var broken = f.encode(command: 0x09, payload: [0x30])
            broken[broken.count - 1] ^= 0x01
            let bytes = f.encode(command: 0x09, payload: [0x10, 0x20]) + other + broken
            bad.append(s.stream(handle: h, attHandle: 0x17, .sent, bytes, values: [bytes.count]).last ?? 0)
        }
        let command: [UInt8] = [0x33, 0x01, 0x01] + [UInt8](repeating: 0, count: 16) + [0x33]
        var wrong = command
        wrong[2] = 0x00
        s.stream(handle: h, attHandle: 0x13, .sent, command, values: [20])
        bad.append(s.stream(handle: h, attHandle: 0x13, .sent, wrong, values: [20]).last ?? 0)
        // A value too short for its event byte and checksum.
        s.stream(handle: h, attHandle: 0x13, .sent, [0x33], values: [1])
        // Level 0x0102 and its sum16 (0x0003, little-endian), then a wrong one.
        s.stream(handle: h, attHandle: 0x19, .sent, [0x02, 0x01, 0x03, 0x00], values: [4])
        bad.append(s.stream(handle: h, attHandle: 0x19, .sent, [0x02, 0x01, 0x04, 0x00], values: [4]).last ?? 0)
        // SLIP junk, then a frame with C0 inside, then the same with its xor8 changed.
        let slip: [UInt8] = [
            0x05, 0x06, 0x07, 0xc0, 0x07, 0xdb, 0xdc, 0x01, 0xc6, 0xc0, 0x07, 0xdb, 0xdc, 0x01, 0xc7, 0xc0,
        ]
        bad.append(s.stream(handle: h, attHandle: 0x1b, .sent, slip, values: [5, 5, 6]).last ?? 0)
        if let f = formats["bulb-like"] {
            // The preamble cut across values, two frames, then the preamble's bytes again: junk.
            let frame = f.encode(command: 0x21, payload: [0x01])
            let bytes = Array("BT-READY".utf8) + frame + frame + Array("BT-READY".utf8) + frame
            s.stream(handle: h, attHandle: 0x1d, .sent, bytes, values: [3, 7, 9, 20, 20])
        }
        // "myssid" in two frames; SetOpMode with a bad checksum; a message whose frames hold 5 of its 6 bytes.
        for value in [
            "09 10 00 05 06 00 6d 79 73", "09 00 01 03 73 69 64", "08 02 02 01 01 14 7e", "09 10 03 05 06 00 6d 79 73",
            "09 00 04 02 73 69",
        ] {
            let bytes = Hex.bytes(value) ?? []
            let record = s.stream(handle: h, attHandle: 0x1f, .sent, bytes, values: [bytes.count]).last ?? 0
            if value.hasPrefix("08") { bad.append(record) }
        }
        s.disconnect(handle: h)
        return (s.bytes, bad)
    }

    func testPackedHeadersFixedSizesAndValueChecksumsAgreeWithTheExportedPlugin() throws {
        let (folder, capture, bad) = try framesFolder(Self.packedDefinitions, packedCapture)
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["--dissectors", folder.path]

        let all = try events(capture, arguments)
        XCTAssertEqual(
            all.compactMap { $0["command_name"] as? String },
            [
                "StatusUpdated", "StatusUpdated", "StatusUpdated", "Ping", "Ping", "Ping", "Data", "Data", "Data",
                "Command", "Command", "Level", "Level", "Seven", "Seven", "Light", "Light", "Light", "StationSSID",
                "SetOpMode",
            ])
        XCTAssertEqual(all.filter { $0["id"] as? String == "a5.fragment.missing" }.count, 1)
        XCTAssertEqual(all.filter { $0["id"] as? String == "a5.preamble" }.count, 1)
        XCTAssertEqual(
            all.filter { $0["dissector"] as? String == "buds-like" }.compactMap { e in
                (e["flags_names"] as? [String]).map { $0.joined(separator: ",") }
            },
            ["", "response,fragment", ""])
        let badRecords = all.filter { $0["id"] as? String == "a5.checksum.bad" }.compactMap { $0["record"] as? Int }
        XCTAssertEqual(badRecords, bad)
        XCTAssertEqual(all.filter { $0["id"] as? String == "a5.payload.short" }.count, 1)
        // A whole value with no event byte has no command to name.
        XCTAssertTrue(
            all.contains { $0["message"] as? String == "header-sum-like: value: checksum 0x0004, expected 0x0003" })

        try requireLuaTshark()
        for file in Self.packedDefinitions.keys.sorted() {
            try export(folder.appendingPathComponent(file).path)
            let name = String(file.dropLast(".yaml".count))
            XCTAssertGreaterThanOrEqual(try compare(capture, [name], arguments), 4, file)
        }
    }
}
