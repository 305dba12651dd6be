import BTLensCore
import BTLensDissect

/// The sample captures in Captures/, built by script. `btlens-samples DIR` writes them;
/// a test checks that the committed files are exactly what these scripts produce.
public enum SampleCaptures {
    public struct Sample {
        public var file: String
        public var session: LESession
    }

    public static var all: [Sample] {
        [
            Sample(file: "ble_a5_session.btsnoop", session: session()),
            Sample(file: "ble_a5_faults.btsnoop", session: faults()),
            Sample(file: "ble_mid_connection.btsnoop", session: midConnection()),
            Sample(file: "btmon_monitor.btsnoop", session: monitor()),
            Sample(file: "h1_datalink_1001.btsnoop", session: exchange(LESession(datalink: 1001))),
            Sample(file: "h4_labelled_1001.btsnoop", session: h4In1001()),
            Sample(file: "cut_in_record.btsnoop", session: cutInRecord()),
            Sample(file: "bredr_rfcomm.btsnoop", session: bredrRFCOMM()),
            Sample(file: "bredr_iap2_ea.btsnoop", session: bredrIAP2()),
            Sample(file: "bredr_spp_iap2_class.btsnoop", session: sppWithIAP2Class()),
            Sample(file: "ble_firmware_before.btsnoop", session: firmwareBefore()),
            Sample(file: "ble_firmware_after.btsnoop", session: firmwareAfter()),
            Sample(file: "ble_credit_channel_a5.btsnoop", session: creditChannelA5()),
            Sample(file: "bredr_headphone_audio.btsnoop", session: headphoneAudio()),
            Sample(file: "ble_app_log.btsnoop", session: appLogSession().session),
        ]
    }

    static let peer: [UInt8] = [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa]

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// A healthy session: discovery, MTU, Device Information reads (one long), CCCD write, and A5
    /// frames whole, split over ATT values and ACL fragments, several per value, and one long write.
    public static func session() -> LESession {
        var s = LESession()
        let h: UInt16 = 0x0040
        s.connect(handle: h, address: peer)
        s.att(handle: h, .sent, [0x02] + le16(247))
        s.att(handle: h, .received, [0x03] + le16(64))
        // Primary services: GAP, Device Information, Battery, vendor 0xFFF0.
        s.att(handle: h, .sent, [0x10, 0x01, 0x00, 0xff, 0xff, 0x00, 0x28])
        s.att(
            handle: h, .received,
            [0x11, 0x06] + svc(0x0001, 0x0003, 0x1800) + svc(0x0004, 0x0008, 0x180a)
                + svc(0x0009, 0x000c, 0x180f) + svc(0x000d, 0x0016, 0xfff0))
        s.att(handle: h, .sent, [0x10, 0x17, 0x00, 0xff, 0xff, 0x00, 0x28])
        s.att(handle: h, .received, [0x01, 0x10, 0x17, 0x00, 0x0a])
        s.att(handle: h, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(
            handle: h, .received,
            [0x09, 0x07] + chr(0x0002, 0x02, 0x0003, 0x2a00) + chr(0x0005, 0x02, 0x0006, 0x2a26)
                + chr(0x0007, 0x02, 0x0008, 0x2a24) + chr(0x000a, 0x12, 0x000b, 0x2a19)
                + chr(0x000e, 0x0a, 0x000f, 0xfff1)
                + chr(0x0012, 0x04, 0x0013, 0xfff3) + chr(0x0014, 0x10, 0x0015, 0xfff4))
        s.att(handle: h, .sent, [0x04, 0x16, 0x00, 0x16, 0x00])
        s.att(handle: h, .received, [0x05, 0x01, 0x16, 0x00, 0x02, 0x29])
        // Firmware revision (short read) and model number (long read: 63 + 7 bytes with MTU 64).
        s.att(handle: h, .sent, [0x0a, 0x06, 0x00])
        s.att(handle: h, .received, [0x0b] + text("1.4.2"))
        let model = text("Aurora ANC Headphones, model AH-2024, hardware revision C, rev 0007")
        s.att(handle: h, .sent, [0x0a, 0x08, 0x00])
        s.att(handle: h, .received, [0x0b] + Array(model.prefix(63)))
        s.att(handle: h, .sent, [0x0c, 0x08, 0x00, 63, 0x00])
        s.att(handle: h, .received, [0x0d] + Array(model.dropFirst(63)))
        s.att(handle: h, .sent, [0x12, 0x16, 0x00, 0x01, 0x00])
        s.att(handle: h, .received, [0x13])
        // ANC mode: a plain 1-byte characteristic, not A5.
        s.att(handle: h, .sent, [0x0a, 0x0f, 0x00])
        s.att(handle: h, .received, [0x0b, 0x01])

        s.frame(handle: h, attHandle: 0x0013, .sent, command: 0x20, sequence: 7, payload: [0x01])
        s.frame(handle: h, attHandle: 0x0015, .received, command: 0xa0, sequence: 0x10, payload: [0x00])
        s.frame(
            handle: h, attHandle: 0x0013, .sent, command: 0x21, sequence: 8, payload: Array(0..<30), values: [20, 17])
        // Two frames in one notification.
        let a = Frame.encode(command: 0xa1, sequence: 0x11, payload: [0x00, 0x30])
        let b = Frame.encode(command: 0x05, sequence: 0x12, payload: [0x02, 0x5a, 0x64])
        let r1 = s.stream(handle: h, attHandle: 0x0015, .received, a + b, values: [a.count + b.count])
        s.expectFrame(r1[0], .received, 0x0015, command: 0xa1, sequence: 0x11, payload: [0x00, 0x30])
        s.expectFrame(r1[0], .received, 0x0015, command: 0x05, sequence: 0x12, payload: [0x02, 0x5a, 0x64])
        // A Write Request (answered by 0xa2 below) whose L2CAP header is split across ACL fragments of 3 bytes.
        let e = Frame.encode(command: 0x22, sequence: 9, payload: [0x02])
        let r3 = s.l2cap(handle: h, .sent, [0x12, 0x13, 0x00] + e, fragment: 3)
        s.expectFrame(r3, .sent, 0x0013, command: 0x22, sequence: 9, payload: [0x02])
        s.att(handle: h, .received, [0x13])
        // A frame ending inside a notification that also starts the next one.
        let c = Frame.encode(command: 0xa2, sequence: 0x13, payload: Array(repeating: 0x42, count: 12))
        let d = Frame.encode(command: 0x06, sequence: 0x14, payload: [9, 8, 7, 6])
        let r2 = s.stream(handle: h, attHandle: 0x0015, .received, c + d, values: [15, 10, 5])
        s.expectFrame(
            r2[1], .received, 0x0015, command: 0xa2, sequence: 0x13, payload: Array(repeating: 0x42, count: 12))
        s.expectFrame(r2[2], .received, 0x0015, command: 0x06, sequence: 0x14, payload: [9, 8, 7, 6])
        // A long write: Prepare Write ×2, Execute Write; the frame belongs to the Execute record.
        let f = Frame.encode(command: 0x30, sequence: 10, payload: Array(repeating: 0x5c, count: 80))
        s.att(handle: h, .sent, [0x16, 0x13, 0x00, 0x00, 0x00] + Array(f.prefix(50)))
        s.att(handle: h, .received, [0x17, 0x13, 0x00, 0x00, 0x00] + Array(f.prefix(50)))
        s.att(handle: h, .sent, [0x16, 0x13, 0x00, 50, 0x00] + Array(f.dropFirst(50)))
        s.att(handle: h, .received, [0x17, 0x13, 0x00, 50, 0x00] + Array(f.dropFirst(50)))
        let r4 = s.att(handle: h, .sent, [0x18, 0x01])
        s.expectFrame(r4, .sent, 0x0013, command: 0x30, sequence: 10, payload: Array(repeating: 0x5c, count: 80))
        s.att(handle: h, .received, [0x19])
        s.frame(handle: h, attHandle: 0x0015, .received, command: 0xb0, sequence: 0x15, payload: [0x00])
        s.disconnect(handle: h)
        return s
    }

    /// Every A5 and reassembly fault once, each expected at its record.
    public static func faults() -> LESession {
        var s = LESession()
        let h: UInt16 = 0x0041
        s.connect(handle: h, address: peer)
        s.frame(handle: h, attHandle: 0x0013, .sent, command: 0x20, sequence: 1, payload: [0x01])
        s.frame(handle: h, attHandle: 0x0013, .sent, command: 0x20, sequence: 2, payload: [0x02], corruptChecksum: true)
        s.expect("a5.checksum.bad", at: s.lastRecord)
        s.frame(handle: h, attHandle: 0x0013, .sent, command: 0x20, sequence: 3, payload: [0x03])
        s.frame(handle: h, attHandle: 0x0013, .sent, command: 0x20, sequence: 3, payload: [0x03])
        s.expect("a5.sequence.duplicate", at: s.lastRecord)
        s.frame(handle: h, attHandle: 0x0013, .sent, command: 0x20, sequence: 6, payload: [0x06])
        s.expect("a5.sequence.gap", at: s.lastRecord)
        s.stream(handle: h, attHandle: 0x0013, .sent, [0x11, 0x22, 0x33], values: [3])
        // Diagnostics name the record where their bytes began, not the one that revealed them.
        s.expect("a5.resync", at: s.lastRecord)
        s.frame(handle: h, attHandle: 0x0013, .sent, command: 0x21, sequence: 7, payload: [])
        // The accessory's counter wraps 254 → 255 → 0 without complaint, then skips 1.
        for seq: UInt8 in [254, 255, 0, 2] {
            s.frame(handle: h, attHandle: 0x0015, .received, command: 0x90, sequence: seq, payload: [seq])
        }
        s.expect("a5.sequence.gap", at: s.lastRecord)
        // A frame whose second half is in a record the capture cut short (to 13 bytes with the H4 byte,
        // not Android's filtered 14); the next frame shows the gap.
        let lost = Frame.encode(command: 0x20, sequence: 8, payload: Array(repeating: 0x08, count: 13))
        s.stream(handle: h, attHandle: 0x0013, .sent, Array(lost.prefix(10)), values: [10])
        let frameBegan = s.lastRecord
        let cut = [0x52, 0x13, 0x00] + Array(lost.dropFirst(10))
        s.acl(handle: h, .sent, boundary: 0b10, le16(cut.count) + le16(4) + cut, cutTo: 8)
        s.expect("capture.truncated", at: s.lastRecord)
        s.expect("a5.truncated", at: frameBegan)
        s.frame(handle: h, attHandle: 0x0013, .sent, command: 0x20, sequence: 9, payload: [0x09])
        s.expect("a5.sequence.gap", at: s.lastRecord)
        // ACL faults, on a non-A5 characteristic.
        s.acl(handle: h, .received, boundary: 0b01, [0x01, 0x02, 0x03])
        s.expect("l2cap.unexpected_continuation", at: s.lastRecord)
        s.acl(handle: h, .received, boundary: 0b10, le16(20) + le16(4) + [0x1b, 0x30, 0x00])
        s.acl(handle: h, .received, boundary: 0b10, le16(4) + le16(4) + [0x1b, 0x30, 0x00, 0x55])
        s.expect("l2cap.unexpected_start", at: s.lastRecord)
        s.acl(handle: h, .received, boundary: 0b10, le16(4) + le16(4) + [0x1b, 0x30, 0x00, 0x56, 0xde, 0xad])
        s.expect("l2cap.overlength", at: s.lastRecord)
        s.att(handle: h, .sent, [0x3f, 0x01, 0x02])
        s.expect("att.opcode.unknown", at: s.lastRecord)
        s.att(handle: h, .sent, [0x12, 0x13])
        s.expect("att.malformed", at: s.lastRecord)
        // The capture ends inside an L2CAP PDU and inside a notified frame.
        s.stream(handle: h, attHandle: 0x0015, .received, [0xa5, 0x01, 0x90, 0x03, 0x00], values: [5])
        let notifiedFrameBegan = s.lastRecord
        s.acl(handle: h, .sent, boundary: 0b10, le16(30) + le16(4) + [0x52, 0x13, 0x00, 0xa5, 0x01, 0x20])
        s.expect("l2cap.incomplete", at: s.lastRecord)
        s.expect("a5.truncated", at: notifiedFrameBegan)
        return s
    }

    /// A capture that begins mid-connection and mid-frame: no Connection Complete, no discovery.
    public static func midConnection() -> LESession {
        var s = LESession()
        let h: UInt16 = 0x0042
        s.acl(handle: h, .received, boundary: 0b01, [0x11, 0x22, 0x33, 0x44])
        s.expect("hci.connection.inferred", at: s.lastRecord)
        s.expect("l2cap.continuation_at_capture_start", at: s.lastRecord)
        s.stream(handle: h, attHandle: 0x0025, .received, [0x07, 0x00, 0x3c], values: [3])
        s.expect("a5.resync", at: s.lastRecord)
        s.frame(handle: h, attHandle: 0x0025, .received, command: 0x81, sequence: 40, payload: [0x01, 0x02])
        s.frame(handle: h, attHandle: 0x0022, .sent, command: 0x01, sequence: 200, payload: [], values: [3, 4])
        s.frame(handle: h, attHandle: 0x0025, .received, command: 0x81, sequence: 41, payload: [0x03, 0x04])
        s.disconnect(handle: h)
        return s
    }

    /// btmon -w output (datalink 2001): index records, notes and user logging around an exchange.
    public static func monitor() -> LESession {
        var s = LESession(datalink: 2001)
        s.writer.addMonitor(opcode: 12, index: 0xffff, text("Linux version 6.6.31 (x86_64)") + [0], time: s.tick())
        s.writer.addMonitor(
            opcode: 0, index: 0, [0x00, 0x03] + peer.reversed() + text("hci0") + [0, 0, 0, 0], time: s.tick())
        s.writer.addMonitor(opcode: 8, index: 0, [], time: s.tick())
        s.writer.addMonitor(opcode: 10, index: 0, Array(peer.reversed()) + le16(2), time: s.tick())
        s.writer.addMonitor(
            opcode: 13, index: 0xffff, [6, 11] + text("bluetoothd") + [0] + text("Starting discovery"), time: s.tick())
        return exchange(s)
    }

    /// datalink 1001 in name, H4 in content.
    static func h4In1001() -> LESession {
        var s = LESession(datalink: 1001)
        s.writer = BTSnoopWriter(datalink: 1001, h4: true)
        s.expect("capture.btsnoop.h4_in_1001", at: 1)
        return exchange(s)
    }

    /// A file whose last record runs past the end of the file.
    static func cutInRecord() -> LESession {
        var s = exchange(LESession())
        s.writer.addRaw(
            [0x02, 0x40, 0x20, 0x09, 0x00, 0x05, 0x00, 0x04, 0x00, 0x1b], flags: 1, time: s.tick(), cutTo: nil,
            includedOverride: 40)
        s.expect("capture.truncated", at: s.lastRecord)
        s.expect("hci.connection.inferred", at: s.lastRecord)
        s.expect("capture.record.past_end", at: s.lastRecord)
        return s
    }

    /// BR/EDR: an L2CAP channel for RFCOMM set up by signalling, the RFCOMM multiplexer and one
    /// data channel with credits, a frame with a bad FCS, and a channel whose PSM is not RFCOMM.
    public static func bredrRFCOMM() -> LESession {
        var s = LESession()
        let h: UInt16 = 0x000b
        s.connectBREDR(handle: h, address: peer)
        // Connection Request (PSM 3, our CID 0x0040) and Response (their CID 0x0071), both configured.
        s.l2cap(handle: h, .sent, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x03, 0x00, 0x40, 0x00])
        s.l2cap(
            handle: h, .received, cid: 0x0001, [0x03, 0x01, 0x08, 0x00, 0x71, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00])
        s.l2cap(handle: h, .sent, cid: 0x0001, [0x04, 0x02, 0x04, 0x00, 0x71, 0x00, 0x00, 0x00])
        s.l2cap(handle: h, .received, cid: 0x0001, [0x05, 0x02, 0x06, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00])
        s.rfcomm(handle: h, .sent, cid: 0x0071, dlci: 0, control: 0x3f)
        s.rfcomm(handle: h, .received, cid: 0x0040, dlci: 0, control: 0x73)
        // PN for DLCI 6 (channel 3) with credit-based flow control, then SABM/UA on DLCI 6.
        s.rfcomm(
            handle: h, .sent, cid: 0x0071, dlci: 0, control: 0xef,
            [0x83, 0x11, 0x06, 0xf0, 0x00, 0x00, 0xf4, 0x03, 0x00, 0x07])
        s.rfcomm(handle: h, .sent, cid: 0x0071, dlci: 6, control: 0x3f)
        s.rfcomm(handle: h, .received, cid: 0x0040, dlci: 6, control: 0x73)
        s.rfcomm(
            handle: h, .sent, cid: 0x0071, dlci: 6, control: 0xff, credits: 7, [0xff, 0x55, 0x02, 0x00, 0xee, 0x10])
        s.rfcomm(
            handle: h, .received, cid: 0x0040, dlci: 6, control: 0xef, [0xff, 0x55, 0x02, 0x00, 0xee, 0x10],
            corruptFCS: true)
        s.expect("rfcomm.fcs.bad", at: s.lastRecord)
        // A channel for another PSM (AVCTP, 0x17) is named, not decoded.
        s.l2cap(handle: h, .received, cid: 0x0001, [0x02, 0x03, 0x04, 0x00, 0x17, 0x00, 0x72, 0x00])
        s.l2cap(
            handle: h, .sent, cid: 0x0001, [0x03, 0x03, 0x08, 0x00, 0x41, 0x00, 0x72, 0x00, 0x00, 0x00, 0x00, 0x00])
        s.l2cap(handle: h, .sent, cid: 0x0072, [0x00, 0x11, 0x0e])
        s.disconnect(handle: h)
        return s
    }

    /// An MFi accessory over iAP2 on RFCOMM channel 3: detect, link sync, identification with the EA
    /// protocol `com.lawaken.iap2`, an EA session, and A5 frames over it split across iAP2 packets and
    /// RFCOMM frames; a bad frame checksum and a retransmitted packet.
    public static func bredrIAP2(accessoryName: String = "Lumen Lamp", serial: String = "LW0001") -> LESession {
        var s = LESession()
        let h: UInt16 = 0x000c
        iap2Start(&s, handle: h, accessoryName: accessoryName, serial: serial)
        // The phone's A5 frame split over two EA packets; the second packet split over two RFCOMM frames.
        let f1 = Frame.encode(command: 0x20, sequence: 1, payload: [0x01, 0x02, 0x03])
        _ = s.iap2(handle: h, .sent, iap2Packet(0x40, 0x74, 0x21, 2, [0x00, 0x05] + Array(f1.prefix(4))))
        let r1 = s.iap2(
            handle: h, .sent, iap2Packet(0x40, 0x75, 0x21, 2, [0x00, 0x05] + Array(f1.dropFirst(4))), [6, 20])
        s.expectFrame(r1[1], .sent, 5, command: 0x20, sequence: 1, payload: [0x01, 0x02, 0x03])
        // The accessory answers with two frames in one EA packet, the second with a bad checksum.
        var f3 = Frame.encode(command: 0x05, sequence: 0x41, payload: [0x64])
        f3[f3.count - 1] &+= 1
        let r2 = s.iap2(
            handle: h, .received,
            iap2Packet(
                0x40, 0x22, 0x75, 2, [0x00, 0x05] + Frame.encode(command: 0xa0, sequence: 0x40, payload: [0x00]) + f3))
        s.expectFrame(r2[0], .received, 5, command: 0xa0, sequence: 0x40, payload: [0x00])
        s.expectFrame(r2[0], .received, 5, command: 0x05, sequence: 0x41, payload: [0x64], ok: false)
        s.expect("a5.checksum.bad", at: r2[0])
        // The same packet resent with a refreshed PAN: a retransmission, its EA bytes not fed twice.
        let r3 = s.iap2(
            handle: h, .received,
            iap2Packet(
                0x40, 0x22, 0x76, 2, [0x00, 0x05] + Frame.encode(command: 0xa0, sequence: 0x40, payload: [0x00]) + f3))
        s.expect("iap2.retransmission", at: r3[0])
        // And logged twice by the capture, byte for byte, 1.25 ms later: a duplicate.
        let r4 = s.iap2(
            handle: h, .received,
            iap2Packet(
                0x40, 0x22, 0x76, 2, [0x00, 0x05] + Frame.encode(command: 0xa0, sequence: 0x40, payload: [0x00]) + f3))
        s.expect("iap2.duplicate", at: r4[0])
        s.disconnect(handle: h)
        return s
    }

    /// The L2CAP channel ids of the iAP2 RFCOMM session (`iap2Start`): the phone's and the accessory's.
    enum IAP2Channel {
        static let ours: UInt16 = 0x0040
        static let theirs: UInt16 = 0x0071
    }

    /// A BR/EDR connection on `handle`, RFCOMM on DLCI 6, iAP2 detect and link SYN, identification
    /// with the EA protocol com.lawaken.iap2 (identifier 1) and its EA session 5 started. The
    /// phone's next PSN is 0x74, the accessory's 0x22.
    static func iap2Start(_ s: inout LESession, handle h: UInt16, accessoryName: String, serial: String = "LW0001") {
        let (ours, theirs) = (IAP2Channel.ours, IAP2Channel.theirs)
        s.connectBREDR(handle: h, address: peer)
        s.l2cap(handle: h, .sent, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x03, 0x00, 0x40, 0x00])
        s.l2cap(
            handle: h, .received, cid: 0x0001, [0x03, 0x01, 0x08, 0x00, 0x71, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00])
        s.rfcomm(handle: h, .sent, cid: theirs, dlci: 0, control: 0x3f)
        s.rfcomm(handle: h, .received, cid: ours, dlci: 0, control: 0x73)
        s.rfcomm(handle: h, .sent, cid: theirs, dlci: 6, control: 0x3f)
        s.rfcomm(handle: h, .received, cid: ours, dlci: 6, control: 0x73)
        func param(_ id: UInt16, _ data: [UInt8]) -> [UInt8] {
            [0, UInt8(data.count + 4), UInt8(id >> 8), UInt8(id & 0xff)] + data
        }
        func message(_ id: UInt16, _ params: [UInt8] = []) -> [UInt8] {
            [0x40, 0x40, 0, UInt8(params.count + 6), UInt8(id >> 8), UInt8(id & 0xff)] + params
        }
        s.iap2(handle: h, .received, [0xff, 0x55, 0x02, 0x00, 0xee, 0x10])
        s.iap2(handle: h, .sent, [0xff, 0x55, 0x02, 0x00, 0xee, 0x10])
        let lsp: [UInt8] = [1, 8, 0x04, 0x00, 0x03, 0xe8, 0x00, 0x32, 0x1e, 0x04, 1, 0, 1, 2, 2, 1]
        s.iap2(handle: h, .received, iap2Packet(0x80, 0x20, 0, 0, lsp))
        s.iap2(handle: h, .sent, iap2Packet(0xc0, 0x70, 0x20, 0, lsp))
        s.iap2(handle: h, .received, iap2Packet(0x40, 0x20, 0x70, 0))
        s.iap2(handle: h, .sent, iap2Packet(0x40, 0x71, 0x20, 1, message(0x1d00)))
        let ident = message(
            0x1d01,
            param(0, Array((accessoryName + "\0").utf8)) + param(1, Array("LL-2\0".utf8))
                + param(2, Array("Lawaken\0".utf8)) + param(3, Array((serial + "\0").utf8))
                + param(4, Array("2.1.0\0".utf8)) + param(5, Array("B\0".utf8))
                + param(10, param(0, [1]) + param(1, Array("com.lawaken.iap2\0".utf8)) + param(2, [0])))
        s.iap2(handle: h, .received, iap2Packet(0x40, 0x21, 0x71, 1, ident), [40, 200])
        s.iap2(handle: h, .sent, iap2Packet(0x40, 0x72, 0x21, 1, message(0x1d02)))
        s.iap2(
            handle: h, .sent, iap2Packet(0x40, 0x73, 0x21, 1, message(0xea00, param(0, [1]) + param(1, [0x00, 0x05]))))
    }

    /// One iAP2 link packet (iap2.md): control bits, PSN, PAN, session id, payload.
    static func iap2Packet(
        _ control: UInt8, _ psn: UInt8, _ pan: UInt8, _ session: UInt8, _ payload: [UInt8] = []
    ) -> [UInt8] {
        IAP2LinkPacket.encode(control: control, psn: psn, pan: pan, session: session, payload: payload)
    }

    /// Connect, one command and its response as A5 frames, disconnect.
    static func exchange(_ base: LESession) -> LESession {
        var s = base
        let h: UInt16 = 0x0040
        s.connect(handle: h, address: peer)
        s.frame(handle: h, attHandle: 0x0013, .sent, command: 0x20, sequence: 1, payload: [0x01], values: [5, 3])
        s.frame(handle: h, attHandle: 0x0015, .received, command: 0xa0, sequence: 1, payload: [0x00])
        s.disconnect(handle: h)
        return s
    }

    static func svc(_ start: UInt16, _ end: UInt16, _ uuid: UInt16) -> [UInt8] {
        le16(Int(start)) + le16(Int(end)) + le16(Int(uuid))
    }

    static func chr(_ decl: UInt16, _ props: UInt8, _ value: UInt16, _ uuid: UInt16) -> [UInt8] {
        le16(Int(decl)) + [props] + le16(Int(value)) + le16(Int(uuid))
    }
}

extension LESession {
    /// Bytes on the iAP2 RFCOMM session of `SampleCaptures.iap2Start` (DLCI 6), as UIH frames of the
    /// given sizes: to the accessory (sent) or from it (received). Returns their records.
    @discardableResult
    mutating func iap2(handle: UInt16, _ direction: Direction, _ bytes: [UInt8], _ sizes: [Int]? = nil) -> [Int] {
        let cid = direction == .sent ? SampleCaptures.IAP2Channel.theirs : SampleCaptures.IAP2Channel.ours
        return rfcommStream(handle: handle, direction, cid: cid, dlci: 6, bytes, frames: sizes)
    }
}
