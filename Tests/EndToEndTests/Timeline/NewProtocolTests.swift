import BTLensCore
import BTLensDissect
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

@testable import BTLensDefinitions

/// A protocol btlens has never seen, described only with what Dissectors/README.md documents,
/// decoded from a capture built byte by byte.
final class NewProtocolTests: XCTestCase {
    static let definition = """
        protocol: libra-scale
        title: Libra kitchen scale
        bind:
          characteristics:
            - {uuid: 5ca1e000-0001-4c1b-9a1e-0000000000a1, role: command}
            - {uuid: 5ca1e000-0001-4c1b-9a1e-0000000000a2, role: event}
            - {uuid: 5ca1e000-0001-4c1b-9a1e-0000000000a3, framing: event-byte}
        framing:
          magic: 0x5a
          header: [flags, command, sequence, {length: u2le}]
          checksum: {algorithm: crc8, covers: frame}
        flags: {0x01: stable, 0x80: error}
        enums:
          unit: {0: grams, 1: ounces}
        types:
          entry:
            seq:
              - {id: day, type: u2le}
              - {id: weight, type: u4le, scale: 0.001, unit: kg}
        messages:
          - {id: 0x01, name: GetWeight, from: phone}
          - id: 0x81
            name: Weight
            from: accessory
            seq:
              - {id: weight, type: s4le, scale: 0.001, unit: kg}
              - {id: unit, type: u1, enum: unit}
          - {id: 0x02, name: Tare, from: phone}
          - {id: 0x82, name: TareDone, from: accessory}
          - id: 0x40
            name: History
            from: accessory
            kind: event
            seq:
              - {id: count, type: u1}
              - {id: entries, type: entry, repeat: count}
          - id: 0x41
            name: Notice
            from: accessory
            kind: event
            seq:
              - {id: kind, type: u1}
              - id: body
                type:
                  switch-on: kind
                  cases: {1: u1, 2: str}
          - id: 0x07
            name: Battery
            from: accessory
            kind: event
            seq:
              - {id: level, type: u1, unit: "%"}
        pairing:
          match: sequence
          response-command: request | 0x80
          timeout-ms: 100
        """

    let format = FrameFormat(
        name: "libra-scale", magic: [0x5a],
        header: [
            .flags, .command(width: 1, bigEndian: true), .sequence,
            .length(width: 2, bigEndian: false),
        ],
        checksum: FrameFormat.Checksum(ChecksumAlgorithm.named("crc-8")!))

    /// The UUID's little-endian wire form for the capture's discovery.
    func wire(_ last: UInt8) -> [UInt8] {
        Array(
            [0x5c, 0xa1, 0xe0, 0x00, 0x00, 0x01, 0x4c, 0x1b, 0x9a, 0x1e, 0x00, 0x00, 0x00, 0x00, 0x00, last].reversed())
    }

    /// The capture, and the records of its messages in order.
    func capture() -> (LESession, [Int]) {
        var s = LESession()
        let h: UInt16 = 0x0040
        s.connect(handle: h, address: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        // Characteristic discovery, one 128-bit declaration per Read By Type Response.
        for (i, last) in [UInt8(0xa1), 0xa2, 0xa3].enumerated() {
            let decl = UInt16(0x0010 + 2 * i)
            s.att(handle: h, .sent, [0x08, UInt8(decl & 0xff), 0x00, 0xff, 0xff, 0x03, 0x28])
            s.att(handle: h, .received, [0x09, 21, UInt8(decl & 0xff), 0x00, 0x1a, UInt8(decl + 1), 0x00] + wire(last))
        }
        var records: [Int] = []
        func frame(
            _ d: Direction, _ command: UInt16, _ seq: UInt8, flags: UInt8 = 0, _ payload: [UInt8], values: [Int]? = nil
        ) {
            let bytes = format.encode(command: command, sequence: seq, flags: flags, payload: payload)
            records.append(
                s.stream(handle: h, attHandle: d == .sent ? 0x0011 : 0x0013, d, bytes, values: values ?? [bytes.count])
                    .last ?? 0)
        }
        frame(.sent, 0x01, 1, [])
        // 1234 g, split over two notifications (12 bytes: 4 + 8).
        frame(.received, 0x81, 1, flags: 0x01, [0xd2, 0x04, 0x00, 0x00, 0x00], values: [4, 8])
        frame(.sent, 0x02, 2, [])
        s.time += 200_000
        frame(.received, 0x40, 9, [2, 0x01, 0x00, 0xe8, 0x03, 0x00, 0x00, 0x02, 0x00, 0xd0, 0x07, 0x00, 0x00])
        frame(.received, 0x41, 10, [2] + Array("low".utf8))
        frame(.received, 0x82, 2, [])
        records += s.stream(handle: h, attHandle: 0x0015, .received, [0x07, 0x55], values: [2])
        // An empty notification where an event byte is expected.
        records.append(s.att(handle: h, .received, [0x1b, 0x15, 0x00]))
        s.disconnect(handle: h)
        return (s, records)
    }

    func testItDecodesWithNamesFieldsFlagsAndPairing() throws {
        let d = try DefinitionParser.parse(text: Self.definition, file: "libra.yaml")
        var table = DissectorTable.builtIn
        try table.register(d)
        var r = TextRenderer()
        let (session, n) = capture()
        let lines = try analyze(session.bytes, dissectors: table).compactMap { e -> String? in
            switch e.body {
            case .frame, .diagnostic: break
            default: return nil
            }
            guard let line = r.render(e) else { return nil }
            let parts = line.split(separator: " ")
            return ([parts[0]] + parts[2...]).joined(separator: " ").trimmingCharacters(in: .newlines)
        }
        let u = "5ca1e000-0001-4c1b-9a1e-0000000000"
        XCTAssertEqual(
            lines,
            [
                "#\(n[0]) < 0x0040 MSG 0x0011 (\(u)a1) GetWeight (0x01) seq 1",
                // 0x04d2 = 1234 g, flags 0x01 = stable; complete with its second notification, 2 records (2.5 ms) later.
                "#\(n[1]) > 0x0040 MSG 0x0013 (\(u)a2) Weight (0x81) seq 1 flags stable weight=1.234kg unit=grams ← #\(n[0]) in 2.5 ms",
                "#\(n[2]) < 0x0040 MSG 0x0011 (\(u)a1) Tare (0x02) seq 2",
                // 200 ms later: the Tare request is past its 100 ms timeout when the next message arrives.
                "#\(n[3]) < 0x0040 !WARN a5.request.unanswered: libra-scale: Tare (0x02) sequence 2 sent at #\(n[2]): "
                    + "no response within 100 ms",
                "#\(n[3]) > 0x0040 MSG 0x0013 (\(u)a2) History (0x40) seq 9 count=2 entries=[{day=1 weight=1kg} {day=2 weight=2kg}]",
                #"#\#(n[4]) > 0x0040 MSG 0x0013 (\#(u)a2) Notice (0x41) seq 10 kind=2 body="low""#,
                "#\(n[5]) > 0x0040 MSG 0x0013 (\(u)a2) TareDone (0x82) seq 2",
                "#\(n[5]) > 0x0040 !WARN a5.response.unsolicited: libra-scale: TareDone (0x82) sequence 2: "
                    + "no outstanding request it answers",
                "#\(n[6]) > 0x0040 MSG 0x0015 (\(u)a3) Battery (0x07) level=85%",
                "#\(n[7]) > 0x0040 !WARN a5.payload.short: libra-scale: an empty value where an event byte and its payload "
                    + "were expected",
            ])
    }
}

/// A dissector bound to an RFCOMM channel by the service class its SDP record lists.
final class RFCOMMServiceBindingTests: XCTestCase {
    func testSerialPortServiceIsDecodedByItsDefinition() throws {
        let d = try DefinitionParser.parse(
            text: """
                protocol: spp-gadget
                bind:
                  rfcomm-services: [1101]
                messages:
                  - {id: 0x10, name: Ping, from: phone}
                  - {id: 0x90, name: Pong, from: accessory}
                pairing: {response-command: request | 0x80}
                """, file: "spp.yaml")
        var table = DissectorTable.builtIn
        try table.register(d)

        var s = LESession()
        let h: UInt16 = 0x000b
        s.connectBREDR(handle: h, address: [0x06, 0x05, 0x04, 0x03, 0x02, 0x01])
        // SDP on PSM 1 (our CID 0x0041, theirs 0x0072): Serial Port (0x1101) on RFCOMM channel 2.
        s.l2cap(handle: h, .sent, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x01, 0x00, 0x41, 0x00])
        s.l2cap(
            handle: h, .received, cid: 0x0001, [0x03, 0x01, 0x08, 0x00, 0x72, 0x00, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00])
        let record: [UInt8] = [
            0x09, 0x00, 0x01, 0x35, 0x03, 0x19, 0x11, 0x01,
            0x09, 0x00, 0x04, 0x35, 0x0c, 0x35, 0x03, 0x19, 0x01, 0x00, 0x35, 0x05, 0x19, 0x00, 0x03, 0x08, 0x02,
        ]
        let lists: [UInt8] = [0x35, UInt8(record.count + 2), 0x35, UInt8(record.count)] + record
        let params = [0x00, UInt8(lists.count)] + lists + [0x00]
        s.l2cap(handle: h, .received, cid: 0x0041, [0x07, 0x00, 0x01, 0x00, UInt8(params.count)] + params)
        // RFCOMM on PSM 3, then DLCI 4 (channel 2) carrying A5 frames both ways.
        s.l2cap(handle: h, .sent, cid: 0x0001, [0x02, 0x02, 0x04, 0x00, 0x03, 0x00, 0x40, 0x00])
        s.l2cap(
            handle: h, .received, cid: 0x0001, [0x03, 0x02, 0x08, 0x00, 0x71, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00])
        s.rfcomm(handle: h, .sent, cid: 0x0071, dlci: 0, control: 0x3f)
        s.rfcomm(handle: h, .received, cid: 0x0040, dlci: 0, control: 0x73)
        s.rfcomm(handle: h, .sent, cid: 0x0071, dlci: 4, control: 0x3f)
        s.rfcomm(handle: h, .received, cid: 0x0040, dlci: 4, control: 0x73)
        let ping = s.rfcommStream(
            handle: h, .sent, cid: 0x0071, dlci: 4, Frame.encode(command: 0x10, sequence: 1, payload: []),
            frames: [3, 4])
        let pong = s.rfcommStream(
            handle: h, .received, cid: 0x0040, dlci: 4, Frame.encode(command: 0x90, sequence: 1, payload: []))
        s.disconnect(handle: h)

        let frames = try analyze(s.bytes, dissectors: table).compactMap { e -> (Int, FrameInfo)? in
            if case .frame(let a) = e.body { return (e.record, a) }
            return nil
        }
        XCTAssertEqual(
            frames.map { "#\($0.0) \($0.1.transport) ch \($0.1.rfcommChannel ?? 0) \($0.1.decoded?.name ?? "-")" },
            ["#\(ping[1]) rfcomm ch 2 Ping", "#\(pong[0]) rfcomm ch 2 Pong"])
        XCTAssertEqual(frames.last?.1.pairing?.requestRecord, ping[1])
    }
}
