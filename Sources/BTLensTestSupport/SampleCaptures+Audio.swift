import BTLensCore
import BTLensDissect

extension SampleCaptures {
    /// A headset on BR/EDR: optionally SDP naming Handsfree (0x111E) on RFCOMM channel 3, then the
    /// RFCOMM multiplexer and channel 3 carrying `dialogue`, each line cut into UIH frames of
    /// `frameSize` bytes (HFP 1.9 §4.2: the HF sends commands, the AG answers).
    public static func hfpSession(_ dialogue: [(Direction, String)], frameSize: Int, sdp: Bool) -> LESession {
        var s = LESession()
        let h: UInt16 = 0x000d
        s.connectBREDR(handle: h, address: peer)
        if sdp {
            s.l2cap(handle: h, .sent, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x01, 0x00, 0x40, 0x00])
            s.l2cap(
                handle: h, .received, cid: 0x0001,
                [0x03, 0x01, 0x08, 0x00, 0x70, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00])
            s.l2cap(handle: h, .received, cid: 0x0040, sdpResponse(classes: [0x19, 0x11, 0x1e], channel: 3))
        }
        s.l2cap(handle: h, .sent, cid: 0x0001, [0x02, 0x02, 0x04, 0x00, 0x03, 0x00, 0x41, 0x00])
        s.l2cap(
            handle: h, .received, cid: 0x0001, [0x03, 0x02, 0x08, 0x00, 0x71, 0x00, 0x41, 0x00, 0x00, 0x00, 0x00, 0x00])
        s.rfcomm(handle: h, .sent, cid: 0x0071, dlci: 0, control: 0x3f)
        s.rfcomm(handle: h, .received, cid: 0x0041, dlci: 0, control: 0x73)
        s.rfcomm(handle: h, .sent, cid: 0x0071, dlci: 6, control: 0x3f)
        s.rfcomm(handle: h, .received, cid: 0x0041, dlci: 6, control: 0x73)
        for (direction, line) in dialogue {
            let bytes = Array(line.utf8)
            s.rfcommStream(
                handle: h, direction, cid: direction == .sent ? 0x0071 : 0x0041, dlci: 6, bytes,
                frames: Array(repeating: frameSize, count: bytes.count / frameSize + 1))
        }
        return s
    }

    /// A Service Search Attribute Response of one record: ServiceClassIDList `classes` (data
    /// elements), ProtocolDescriptorList {{L2CAP}, {RFCOMM, `channel`}} (Core Vol 3 Part B §5.1).
    public static func sdpResponse(classes: [UInt8], channel: UInt8) -> [UInt8] {
        let list: [UInt8] = [0x09, 0x00, 0x01, 0x35, UInt8(classes.count)] + classes
        let protocols: [UInt8] = [
            0x09, 0x00, 0x04, 0x35, 0x0c, 0x35, 0x03, 0x19, 0x01, 0x00, 0x35, 0x05, 0x19, 0x00, 0x03, 0x08, channel,
        ]
        let record = list + protocols
        let lists: [UInt8] = [0x35, UInt8(record.count + 2), 0x35, UInt8(record.count)] + record
        let params = [UInt8(lists.count >> 8), UInt8(lists.count & 0xff)] + lists + [0x00]
        return [0x07, 0x00, 0x01, UInt8(params.count >> 8), UInt8(params.count & 0xff)] + params
    }
}

extension LESession {
    /// Synchronous Connection Complete (Core Vol 4 Part E §7.7.35): an eSCO link `handle` to the
    /// sample peer, transparent air mode (as for mSBC; 0x02 is CVSD's).
    @discardableResult
    public mutating func eSCOConnected(handle: UInt16, airMode: UInt8 = 0x03) -> Int {
        event(
            0x2c,
            [0x00] + le16(Int(handle)) + SampleCaptures.peer + [0x02, 0x0c, 0x06, 0x3c, 0x00, 0x3c, 0x00, airMode])
    }
}
