import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensTestSupport
import Foundation
import XCTest

/// Framings beyond A5 in btlens and in the exported plugin: CRCs by catalogue name and by
/// parameters (the plugin computes them a bit at a time in Lua, btlens with a table, and both must
/// call the same frames bad), and frames with no magic whose length comes first.
extension WiresharkExportTests {
    static let framingDefinitions = [
        "crc32-band.yaml": """
        protocol: crc32-band
        bind:
          characteristics:
            - {uuid: fff1, role: command}
            - {uuid: fff2, role: event}
        framing:
          magic: 0x7e
          header: [command, sequence, length]
          checksum: {algorithm: crc-32, covers: after-magic, endian: le}
        messages:
          - {id: 0x01, name: Get, from: phone, seq: [{id: data, type: bytes}]}
          - {id: 0x81, name: Got, from: accessory, seq: [{id: data, type: bytes}]}
        pairing: {match: sequence, response-command: request | 0x80}
        """,
        // CRC-16/T10-DIF's parameters, which the catalogue in btlens does not name.
        "t10-lock.yaml": """
        protocol: t10-lock
        bind:
          characteristics:
            - {uuid: ffe1, role: command}
        framing:
          magic: 0xaa55
          header: [{command: u2be}, {length: u2le}]
          checksum: {algorithm: {width: 16, poly: 0x8bb7}, covers: payload, endian: be}
        messages:
          - {id: 0x0102, name: Unlock, from: phone, seq: [{id: code, type: u4le}]}
        """,
        // Pebble's wire protocol: length u16be of the payload, endpoint u16be, payload; no magic.
        "pebble-like.yaml": """
        protocol: pebble-like
        bind:
          characteristics:
            - {uuid: fff3, role: command}
        framing:
          magic: none
          header: [{length: u2be}, {command: u2be}]
        messages:
          - {id: 0x0011, name: PhoneVersion, seq: [{id: data, type: bytes}]}
          - {id: 0x07d1, name: AppMessage, seq: [{id: data, type: bytes}]}
          - {id: 0x0bb8, name: Settings, seq: [{id: body, type: protobuf}]}
        """,
        // Sony's headphones: 3E … 3C, 3D escapes with bit 4 cleared, sum8 after the payload.
        "sony-like.yaml": """
        protocol: sony-like
        bind:
          characteristics:
            - {uuid: fff5, role: command}
        framing:
          delimiter: {start: 0x3e, end: 0x3c, escape: 0x3d, xor: 0x10}
          header: [command, sequence]
          checksum: sum8
        messages:
          - {id: 0x0c, name: Data, seq: [{id: data, type: bytes}]}
        """,
        // A Garmin GFDI-like framing: COBS, length u2le counting the frame, id u2le, CRC-16/ARC.
        "cobs-like.yaml": """
        protocol: cobs-like
        bind:
          characteristics:
            - {uuid: fff6, role: command}
        framing:
          delimiter: cobs
          magic: none
          header: [{length: u2le}, {command: u2le}]
          length-counts: frame
          checksum: {algorithm: crc-16/arc, covers: frame, endian: le}
        messages:
          - {id: 0x1388, name: DeviceInformation, seq: [{id: data, type: bytes}]}
        """,
        // Meshtastic's stream: 94 C3, length u16be, a protobuf; no command: every frame is command 0.
        "meshtastic-like.yaml": """
        protocol: meshtastic-like
        bind:
          characteristics:
            - {uuid: fff8, role: command}
        framing:
          magic: 0x94c3
          header: [{length: u2be}]
          max-length: 516
        messages:
          - {id: 0, name: ToRadio, from: phone, seq: [{id: body, type: protobuf}]}
        """,
        // Jieli's RCSP: FE DC BA, flag, command, length u16be, body, then EF.
        "jieli-like.yaml": """
        protocol: jieli-like
        bind:
          characteristics:
            - {uuid: fff7, role: command}
        framing:
          magic: 0xfedcba
          header: [flags, command, {length: u2be}]
          end: 0xef
        messages:
          - {id: 0x02, name: GetTargetInfo, seq: [{id: data, type: bytes}]}
        """,
    ]

    /// A connection whose discovery finds fff1, fff2, ffe1 and fff3: frames of the CRC protocols, a
    /// good and a bad one of each (the CRC's last byte changed), and a 300-byte Pebble-like frame
    /// cut into values of 20 bytes between two small ones.
    private func framingCapture(_ formats: [String: FrameFormat]) -> (bytes: [UInt8], bad: [Int]) {
        var s = LESession()
        let h: UInt16 = 0x0040
        s.connect(handle: h, address: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        // ffe1's declaration gives its UUID in the Bluetooth Base UUID's 128-bit form, as some
        // accessories' do (Core Vol 3 Part B §2.5.1): bound as ffe1, it is the same characteristic.
        let base: [UInt8] = [0xfb, 0x34, 0x9b, 0x5f, 0x80, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00]
        for (i, uuid) in [UInt16(0xfff1), 0xfff2, 0xffe1, 0xfff3, 0xfff5, 0xfff6, 0xfff7, 0xfff8].enumerated() {
            let declaration = UInt8(0x10 + 2 * i)
            let wire = [UInt8(uuid & 0xff), UInt8(uuid >> 8)]
            let long = uuid == 0xffe1
            s.att(handle: h, .sent, [0x08, declaration, 0x00, 0xff, 0xff, 0x03, 0x28])
            s.att(
                handle: h, .received,
                [0x09, long ? 21 : 7, declaration, 0x00, 0x1a, declaration + 1, 0x00]
                    + (long ? base + wire + [0x00, 0x00] : wire))
        }
        var bad: [Int] = []
        func send(_ format: FrameFormat?, _ d: Direction, _ at: UInt16, _ command: UInt16, _ seq: UInt8, corrupt: Bool)
        {
            guard let format else { return XCTFail("no format") }
            var bytes = format.encode(command: command, sequence: seq, payload: [0x10, 0x20, 0x30, UInt8(seq)])
            if corrupt { bytes[bytes.count - 1] ^= 0x01 }
            let record = s.stream(handle: h, attHandle: at, d, bytes, values: [bytes.count]).last ?? 0
            if corrupt { bad.append(record) }
        }
        let band = formats["crc32-band"]
        let lock = formats["t10-lock"]
        send(band, .sent, 0x11, 0x01, 1, corrupt: false)
        send(band, .received, 0x13, 0x81, 1, corrupt: false)
        send(band, .sent, 0x11, 0x01, 2, corrupt: false)
        send(band, .received, 0x13, 0x81, 2, corrupt: true)
        send(lock, .sent, 0x15, 0x0102, 0, corrupt: false)
        send(lock, .sent, 0x15, 0x0102, 0, corrupt: true)
        if let pebble = formats["pebble-like"] {
            let long = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
            let bytes =
                pebble.encode(command: 0x0011, payload: [1]) + pebble.encode(command: 0x07d1, payload: long)
                + pebble.encode(command: 0x0011, payload: [2])
                // A protobuf message {1: 150, 2: "testing", 3: {1: 150}}, then one cut off inside field 2.
                + pebble.encode(command: 0x0bb8, payload: Hex.bytes("089601120774657374696e671a03089601") ?? [])
                + pebble.encode(command: 0x0bb8, payload: Hex.bytes("0896011207746573") ?? [])
            s.stream(
                handle: h, attHandle: 0x17, .sent, bytes, values: Array(repeating: 20, count: bytes.count / 20 + 1))
        }
        // Delimited frames with marks inside their payloads, a good and a bad one, in 7-byte values.
        let delimited: [(String, UInt16, UInt16, [UInt8])] = [
            ("sony-like", 0x19, 0x0c, [0x3c, 0x3d, 0x3e, 0x10]), ("cobs-like", 0x1b, 0x1388, [0x00, 0x11, 0x00, 0x00]),
        ]
        if let jieli = formats["jieli-like"] {
            // Two frames whose bodies hold EF, then one whose end byte is wrong: junk, said once.
            var broken = jieli.encode(command: 0x02, payload: [0x01])
            broken[broken.count - 1] = 0x00
            let bytes =
                jieli.encode(command: 0x02, payload: [0xef]) + jieli.encode(command: 0x02, payload: [0xef, 0x01])
                + broken + jieli.encode(command: 0x02, payload: [])
            s.stream(handle: h, attHandle: 0x1d, .sent, bytes, values: Array(repeating: 5, count: bytes.count / 5 + 1))
        }
        if let mesh = formats["meshtastic-like"] {
            // A stray magic whose length (0x4000) passes max-length: junk, not a frame. Then
            // want_config_id 12345 ({3=12345}), and the same cut off inside its varint.
            let bytes =
                [0x94, 0xc3, 0x40, 0x00] + mesh.encode(command: 0, payload: [0x18, 0xb9, 0x60])
                + mesh.encode(command: 0, payload: [0x18, 0xb9])
            s.stream(handle: h, attHandle: 0x1f, .sent, bytes, values: [bytes.count])
        }
        for (name, at, command, payload) in delimited {
            guard let format = formats[name] else { continue }
            let good = format.encode(command: command, sequence: 3, payload: payload)
            var broken = format.encode(command: command, sequence: 4, payload: payload)
            broken[broken.count - 2] ^= 0x01
            let both = good + broken
            let records = s.stream(
                handle: h, attHandle: at, .sent, both, values: Array(repeating: 7, count: both.count / 7 + 1))
            bad.append(records.last ?? 0)
        }
        s.disconnect(handle: h)
        return (s.bytes, bad)
    }

    func testCRCsAndUnmarkedFramesAgreeWithTheExportedPlugin() throws {
        let (folder, capture, bad) = try framesFolder(Self.framingDefinitions, framingCapture)
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["--dissectors", folder.path]

        // btlens: every frame named, the changed ones (and only they) with a bad checksum.
        let all = try events(capture, arguments)
        let named = all.compactMap { $0["command_name"] as? String }
        XCTAssertEqual(
            named,
            [
                "Get", "Got", "Get", "Got", "Unlock", "Unlock", "PhoneVersion", "AppMessage", "PhoneVersion",
                "Settings",
                "Settings", "GetTargetInfo", "GetTargetInfo", "GetTargetInfo", "ToRadio", "ToRadio", "Data", "Data",
                "DeviceInformation",
                "DeviceInformation",
            ])
        let invalid = all.filter { $0["id"] as? String == "a5.field.invalid" }.compactMap { $0["message"] as? String }
        XCTAssertEqual(
            invalid,
            [
                // Frames of other framings than A5: the a5.* message names the dissector.
                "pebble-like: Settings: body is not a protobuf message at payload offset 5: field 2 needs 7 bytes, 3 left",
                "meshtastic-like: ToRadio: body is not a protobuf message at payload offset 2: a varint is cut off",
            ])
        let badRecords = all.filter { $0["id"] as? String == "a5.checksum.bad" }.compactMap { $0["record"] as? Int }
        XCTAssertEqual(badRecords, bad)

        try requireLuaTshark()
        for file in Self.framingDefinitions.keys.sorted() {
            try export(folder.appendingPathComponent(file).path)
            let name = String(file.dropLast(".yaml".count))
            XCTAssertGreaterThanOrEqual(try compare(capture, [name], arguments), 4, file)
        }
    }
}
