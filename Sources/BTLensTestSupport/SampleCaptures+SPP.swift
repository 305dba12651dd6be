import BTLensCore
import BTLensDissect

extension SampleCaptures {
    /// A watch on the Serial Port Profile whose SDP record also lists the iAP2 service class, as a
    /// Pebble's does: SDP (a Service Search Attribute Response with ServiceClassIDList {iAP2 …CAFF,
    /// Serial Port 0x1101}, RFCOMM channel 1), then RFCOMM channel 1 carrying the watch's own protocol
    /// (u16 length, u16 endpoint, payload; big-endian), never `FF 5A` or `FF 55`: 14 frames, 427 bytes.
    public static func sppWithIAP2Class() -> LESession {
        var s = LESession()
        let h: UInt16 = 0x000d
        s.connectBREDR(handle: h, address: peer)
        // SDP on PSM 1: our CID 0x0040, theirs 0x0070.
        s.l2cap(handle: h, .sent, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x01, 0x00, 0x40, 0x00])
        s.l2cap(
            handle: h, .received, cid: 0x0001, [0x03, 0x01, 0x08, 0x00, 0x70, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00])
        // Core Vol 3 Part B §4.7: Service Search Attribute Request for Serial Port, every attribute.
        s.l2cap(
            handle: h, .sent, cid: 0x0070,
            [
                0x06, 0x00, 0x01, 0x00, 0x0f, 0x35, 0x03, 0x19, 0x11, 0x01, 0xff, 0xff,
                0x35, 0x05, 0x0a, 0x00, 0x00, 0xff, 0xff, 0x00,
            ])
        s.l2cap(handle: h, .received, cid: 0x0040, sdpResponse(), fragment: 64)
        // RFCOMM on PSM 3: our CID 0x0041, theirs 0x0071; the multiplexer, then DLCI 2 (channel 1).
        s.l2cap(handle: h, .sent, cid: 0x0001, [0x02, 0x02, 0x04, 0x00, 0x03, 0x00, 0x41, 0x00])
        s.l2cap(
            handle: h, .received, cid: 0x0001, [0x03, 0x02, 0x08, 0x00, 0x71, 0x00, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00])
        s.rfcomm(handle: h, .sent, cid: 0x0071, dlci: 0, control: 0x3f)
        s.rfcomm(handle: h, .received, cid: 0x0041, dlci: 0, control: 0x73)
        s.rfcomm(handle: h, .sent, cid: 0x0071, dlci: 2, control: 0x3f)
        s.rfcomm(handle: h, .received, cid: 0x0041, dlci: 2, control: 0x73)
        s.aclFragment = 1021
        for (i, (direction, bytes)) in sppMessages.enumerated() {
            let record = s.rfcomm(
                handle: h, direction, cid: direction == .sent ? 0x0071 : 0x0041, dlci: 2, control: 0xef, bytes)
            // The first bytes, 00 01 00 10 00, are no iAP2: the guess SDP made is withdrawn there.
            if i == 0 { s.expect("rfcomm.channel.guess_withdrawn", at: record) }
        }
        s.disconnect(handle: h)
        return s
    }

    /// The watch's messages: (length, endpoint, payload) each, in the order sent and answered.
    public static var sppMessages: [(Direction, [UInt8])] {
        func message(_ endpoint: UInt16, _ payload: [UInt8]) -> [UInt8] {
            [UInt8(payload.count >> 8), UInt8(payload.count & 0xff), UInt8(endpoint >> 8), UInt8(endpoint & 0xff)]
                + payload
        }
        func padded(_ s: String, _ n: Int) -> [UInt8] {
            Array(Array(s.utf8).prefix(n)) + [UInt8](repeating: 0, count: max(0, n - s.utf8.count))
        }
        let firmware = [0x5e, 0x8a, 0x1c, 0x20] + padded("v4.4.2", 32) + padded("5a3b1c9", 8) + [0x01]
        let recovery = [0x5b, 0x10, 0x00, 0x00] + padded("v4.4.0", 32) + padded("00000000", 8) + [0x02]
        let session: [UInt8] = [0x07] + (0..<16).map { UInt8($0 * 17) }
        return [
            (.sent, message(0x0010, [0x00])),  // watch version: request
            (.received, message(0x0010, [0x01] + firmware + recovery)),  // … and answer
            (.received, message(0x0011, [0x00])),  // phone version: request
            (
                .sent,
                message(
                    0x0011,
                    [0x01, 0xff, 0xff, 0xff, 0xff] + [UInt8](repeating: 0, count: 16) + [0x02, 0x04, 0x04, 0x00])
            ),
            // time
            (.sent, message(0x000b, [0x03, 0x65, 0x53, 0xf1, 0x00, 0x00, 0x3c, 0x0c] + Array("Europe/Paris".utf8))),
            (.received, message(0x07d1, [0x00, 0x00, 0x00, 0x00, 0x01])),  // ping
            (.sent, message(0x07d1, [0x01, 0x00, 0x00, 0x00, 0x01])),  // pong
            (
                .received,
                message(
                    0x0030,
                    [0x01, 0x2a] + (0..<16).map { UInt8($0) } + [0x02]
                        + [0x01, 0, 0, 0, 0x01, 0x04, 0x00, 0x64, 0, 0, 0] + [0x02, 0, 0, 0, 0x02, 0x05, 0x00]
                        + Array("ok\0".utf8) + [0, 0])
            ),
            (.sent, message(0x0030, [0xff, 0x2a])),  // app message ACK
            (
                .received,
                message(0x1a7a, [0x01] + session + [0x65, 0x53, 0xf1, 0x10, 0x00, 0x00, 0x00, 0x51, 0x02, 0x0c, 0x00])
            ),
            (.sent, message(0x1a7a, [0x85, 0x07])),  // data logging ACK
            (
                .received,
                message(
                    0x1a7a, [0x02, 0x07, 0x00, 0x00, 0x00, 0x0b, 0x5c, 0x1f, 0x0a, 0x33] + (0..<135).map { UInt8($0) })
            ),
            (.sent, message(0x1a7a, [0x85, 0x07])),
            (.received, message(0x0020, [0x08])),  // music: now playing?
        ]
    }

    /// ServiceClassIDList {iAP2 accessory …CAFF, Serial Port}, ProtocolDescriptorList {{L2CAP},
    /// {RFCOMM, channel 1}}, ServiceName (Core Vol 3 Part B §3, §5.1).
    public static func sdpResponse(serviceName: String = "Watch SPP") -> [UInt8] {
        let iap2: [UInt8] = [0x1c, 0, 0, 0, 0, 0xde, 0xca, 0xfa, 0xde, 0xde, 0xca, 0xde, 0xaf, 0xde, 0xca, 0xca, 0xff]
        let classes: [UInt8] = [0x09, 0x00, 0x01, 0x35, UInt8(iap2.count + 3)] + iap2 + [0x19, 0x11, 0x01]
        let protocols: [UInt8] = [
            0x09, 0x00, 0x04, 0x35, 0x0c, 0x35, 0x03, 0x19, 0x01, 0x00, 0x35, 0x05, 0x19, 0x00, 0x03, 0x08, 0x01,
        ]
        let text = Array(serviceName.utf8.prefix(200))
        let name: [UInt8] = [0x09, 0x01, 0x00, 0x25, UInt8(text.count)] + text
        let record = classes + protocols + name
        let lists: [UInt8] = [0x35, UInt8(record.count + 2), 0x35, UInt8(record.count)] + record
        let params = [UInt8(lists.count >> 8), UInt8(lists.count & 0xff)] + lists + [0x00]
        return [0x07, 0x00, 0x01, UInt8(params.count >> 8), UInt8(params.count & 0xff)] + params
    }
}
