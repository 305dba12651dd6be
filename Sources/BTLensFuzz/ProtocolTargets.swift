import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensTestSupport
import Foundation

/// RFCOMM, SDP, iAP2, the A5 framer, a dissector-bound stream, and the definition loader.
enum ProtocolTargets {
    typealias L = LinkTargets
    /// The L2CAP channels the BR/EDR targets force by `--decode-as`, as a capture without their setup would.
    static let rfcommCID: UInt16 = 0x0040, sdpCID: UInt16 = 0x0041
    /// RFCOMM server channel 3 (DLCI 6) carries iAP2.
    static let iap2DLCI: UInt8 = 6

    static let all = [
        FuzzTarget(
            name: "rfcomm", summary: "parts as RFCOMM frames (with or without a correct FCS) on a BR/EDR channel",
            seeds: {
                [
                    Parts.encode([
                        (0, [0x03, 0x3f, 0x01, 0x1c]), (1, [0x03, 0x73, 0x01, 0xd7]),
                        (0, [0x03, 0xef, 0x09, 0x83, 0x12, 0x0d, 0x00, 0x00, 0x20, 0x00, 0x00, 0x07, 0x70]),
                        (0, [0x1b, 0xef, 0x07, 0x41, 0x42, 0x43, 0x8c]),
                    ])
                ]
            },
            capture: { bytes in
                var s = L.connected()
                for (tag, body) in Parts(bytes) { s.l2cap(handle: L.bredr, L.direction(tag), cid: rfcommCID, body) }
                return (s.bytes, [.cid(rfcommCID, psm: PSM.rfcomm)])
            }),
        FuzzTarget(
            name: "sdp", summary: "parts as SDP PDUs on a BR/EDR channel",
            seeds: {
                [
                    Parts.encode([
                        (
                            0,
                            [
                                0x06, 0x00, 0x01, 0x00, 0x0f, 0x35, 0x03, 0x19, 0x11, 0x01, 0x03, 0xf0,
                                0x35, 0x05, 0x0a, 0x00, 0x00, 0xff, 0xff, 0x00,
                            ]
                        ),
                        (
                            1,
                            [
                                0x07, 0x00, 0x01, 0x00, 0x0e, 0x00, 0x0b, 0x35, 0x09, 0x35, 0x07, 0x09, 0x00,
                                0x01, 0x35, 0x03, 0x19, 0x11, 0x01, 0x00,
                            ]
                        ),
                    ])
                ]
            },
            capture: { bytes in
                var s = L.connected()
                for (tag, body) in Parts(bytes) { s.l2cap(handle: L.bredr, L.direction(tag), cid: sdpCID, body) }
                return (s.bytes, [.cid(sdpCID, psm: PSM.sdp)])
            }),
        FuzzTarget(
            name: "iap2-link", summary: "parts as the byte stream of an RFCOMM channel that carries iAP2",
            seeds: {
                [
                    Parts.encode([
                        (1, [0xff, 0x55, 0x02, 0x00, 0xee, 0x10]), (0, [0xff, 0x55, 0x02, 0x00, 0xee, 0x10]),
                        (1, IAP2LinkPacket.encode(control: 0x80, psn: 0x20, pan: 0, session: 0, payload: linkSync)),
                        (0, IAP2LinkPacket.encode(control: 0xc0, psn: 0x70, pan: 0x20, session: 0, payload: linkSync)),
                    ])
                ]
            },
            capture: { bytes in
                var s = rfcommOpen()
                for (tag, body) in Parts(bytes) {
                    s.rfcommStream(handle: L.bredr, L.direction(tag), cid: rfcommCID, dlci: iap2DLCI, body)
                }
                return (s.bytes, iap2DecodeAs)
            }),
        FuzzTarget(
            name: "iap2-control", summary: "parts as payloads of iAP2 packets on the control (1) and EA (2) sessions",
            seeds: {
                [
                    Parts.encode([
                        (0, control(0x1d00)),
                        (
                            1,
                            control(
                                0x1d01,
                                parameter(0, Array("Lumen Lamp\0".utf8)) + parameter(1, Array("LL-2\0".utf8))
                                    + parameter(10, parameter(0, [1]) + parameter(1, Array("com.lawaken.iap2\0".utf8))))
                        ),
                        (0, control(0xea00, parameter(0, [1]) + parameter(1, [0x00, 0x05]))),
                        (3, [0x00, 0x05] + Frame.encode(command: 0xa0, sequence: 1, payload: [0])),
                    ])
                ]
            },
            capture: { bytes in
                var s = rfcommOpen()
                let sync = IAP2LinkPacket.encode(control: 0x80, psn: 0x20, pan: 0, session: 0, payload: linkSync)
                s.rfcommStream(handle: L.bredr, .received, cid: rfcommCID, dlci: iap2DLCI, sync)
                s.rfcommStream(
                    handle: L.bredr, .sent, cid: rfcommCID, dlci: iap2DLCI,
                    IAP2LinkPacket.encode(control: 0xc0, psn: 0x70, pan: 0x20, session: 0, payload: linkSync))
                var psn: [UInt8] = [0x71, 0x21]
                for (tag, body) in Parts(bytes) {
                    let d = L.direction(tag)
                    let packet = IAP2LinkPacket.encode(
                        control: 0x40, psn: psn[Int(d.rawValue)], pan: 0, session: tag & 2 == 0 ? 1 : 2,
                        payload: body)
                    psn[Int(d.rawValue)] &+= 1
                    s.rfcommStream(handle: L.bredr, d, cid: rfcommCID, dlci: iap2DLCI, packet)
                }
                return (s.bytes, iap2DecodeAs)
            }),
        FuzzTarget(
            name: "a5", summary: "parts as values of an A5 stream, detected or bound",
            seeds: {
                [
                    Parts.encode([
                        (0, Frame.encode(command: 0x20, sequence: 1, payload: [1, 2, 3])),
                        (0, Array(Frame.encode(command: 0x05, sequence: 2, payload: [0x64]).prefix(4))),
                        (0, [0x01, 0x64, 0x6b]), (0, [0x11, 0x22, 0xa5, 0x01, 0x20, 0x03, 0x00]),
                    ])
                ]
            },
            run: { bytes in
                var detected = FramedStream()
                // The same values into a stream that keeps no payloads, as `stats` runs one:
                // it must find the same frames and say the same things.
                var counted = FramedStream(payloads: .keepNone)
                var bound = FramedStream(format: .a5, detect: false)
                for (tag, body) in Parts(bytes) {
                    precondition(samePayloadless(detected.push(body[...]), counted.push(body[...])))
                    if tag & 1 == 0 { _ = bound.push(body[...]) } else { _ = bound.hole() }
                }
                precondition(samePayloadless(detected.finish(reason: "the end"), counted.finish(reason: "the end")))
                _ = bound.finish(reason: "the end")
            }),
        FuzzTarget(
            name: "dissector",
            summary: "parts as writes and notifications on characteristics the shipped definitions decode",
            seeds: {
                [
                    Parts.encode([
                        (0, Frame.encode(command: 0x20, sequence: 7, payload: [0x02])),
                        (1, Frame.encode(command: 0xa0, sequence: 7, payload: [0x00])),
                        (1, Frame.encode(command: 0x05, sequence: 8, payload: [0x02, 90, 100])),
                        (2, [0x01]), (3, [0x55]),
                    ])
                ]
            },
            capture: { bytes in
                var s = L.connected()
                for (tag, body) in Parts(bytes) {
                    let d = L.direction(tag)
                    let handle: UInt16 = tag & 2 == 0 ? (d == .sent ? 0x0013 : 0x0015) : 0x000f
                    s.att(
                        handle: L.le, d, [d == .sent ? 0x52 : 0x1b] + [UInt8(handle & 0xff), UInt8(handle >> 8)] + body)
                }
                return (
                    s.bytes,
                    [
                        .attHandle(0x0013, dissector: "aurora-headphones"),
                        .attHandle(0x0015, dissector: "aurora-headphones"),
                        .attHandle(0x000f, dissector: "aurora-headphones"),
                    ]
                )
            }),
        FuzzTarget(
            name: "definition", summary: "a definition file (YAML), loaded and checked",
            seeds: { shippedDefinitions() },
            run: { bytes in
                _ = try? DefinitionLoader.load(text: String(decoding: bytes, as: UTF8.self), file: "fuzz.yaml")
            }),
    ]

    /// An iAP2 control session message: start of message 0x4040, length, message id, parameters.
    static func control(_ id: UInt16, _ parameters: [UInt8] = []) -> [UInt8] {
        [
            0x40, 0x40, UInt8((parameters.count + 6) >> 8), UInt8((parameters.count + 6) & 0xff), UInt8(id >> 8),
            UInt8(id & 0xff),
        ] + parameters
    }

    static func parameter(_ id: UInt16, _ data: [UInt8]) -> [UInt8] {
        [UInt8((data.count + 4) >> 8), UInt8((data.count + 4) & 0xff), UInt8(id >> 8), UInt8(id & 0xff)] + data
    }

    /// Link synchronization parameters: version 1, 8 packets, control session 1, EA session 2.
    static let linkSync: [UInt8] = [1, 8, 0x04, 0x00, 0x03, 0xe8, 0x00, 0x32, 0x1e, 0x04, 1, 0, 1, 2, 2, 1]
    static let iap2DecodeAs: [DecodeAs] = [.cid(rfcommCID, psm: PSM.rfcomm), .rfcommIAP2(channel: iap2DLCI >> 1)]

    /// A BR/EDR capture with RFCOMM's multiplexer and the iAP2 channel open.
    static func rfcommOpen() -> LESession {
        var s = L.connected()
        for dlci: UInt8 in [0, iap2DLCI] {
            s.rfcomm(handle: L.bredr, .sent, cid: rfcommCID, dlci: dlci, control: 0x3f)
            s.rfcomm(handle: L.bredr, .received, cid: rfcommCID, dlci: dlci, control: 0x73)
        }
        return s
    }

    static func shippedDefinitions() -> [[UInt8]] {
        let paths = (try? DefinitionLoader.files(in: FuzzTarget.dissectorsFolder)) ?? []
        return paths.compactMap { FileManager.default.contents(atPath: $0).map(Array.init) }
    }
}

/// Outputs alike but for the payloads of whole frames, which a stream keeping no payloads leaves empty.
func samePayloadless(_ kept: [FramedStream.Output], _ counted: [FramedStream.Output]) -> Bool {
    kept.count == counted.count
        && zip(kept, counted).allSatisfy { pair in
            switch pair {
            case (.frame(var k), .frame(let c)):
                if !k.isPartOfMessage { k.payload = [] }
                return k == c
            case (.diagnostic(let k), .diagnostic(let c)):
                return k.id == c.id && k.message == c.message
            default:
                return false
            }
        }
}
