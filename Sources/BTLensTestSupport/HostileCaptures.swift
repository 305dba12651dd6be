import BTLensCapture
import BTLensCore
import BTLensDissect

/// Captures built to break decoders, in the manner of Wireshark's malformed-capture scripts: each
/// lies in one way, and says which diagnostics an honest decoder must give for it (record by
/// record). `btlens-samples --hostile DIR` writes them; docs/hostile-captures.md describes them;
/// HostileCaptureTests checks every expectation and that every output renders.
public enum HostileCaptures {
    public struct Case {
        public var file: String
        public var about: String
        public var bytes: [UInt8]
        /// `id #record`, sorted.
        public var expected: [String]
        /// The A5 frames it must still yield, where it has some to yield.
        public var frames: [LESession.ExpectedFrame] = []
    }

    static let address: [UInt8] = [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa]

    public static func all(zeroLengthRecords: Int = 1_000_000) -> [Case] {
        [
            lyingLengths(), interleavedACL(), oversizedSDU(), rfcommLengths(), iap2Lengths(), a5PastTheEnd(),
            sequenceJumps(),
            zeroLength(zeroLengthRecords), timeTravel(), pklgByteOrderFlip(),
        ]
    }

    static func make(_ file: String, _ about: String, _ s: LESession) -> Case {
        Case(
            file: file, about: about, bytes: s.bytes,
            expected: s.expectedDiagnostics.map { "\($0.id) #\($0.record)" }.sorted(),
            frames: s.expectedFrames)
    }

    /// Lengths that lie at every layer: btsnoop, HCI, ACL, L2CAP, ATT, A5.
    static func lyingLengths() -> Case {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        // btsnoop: the included length is larger than the original.
        let time = s.tick()
        s.expect(
            "capture.record.length_inconsistent",
            at: s.writer.addRaw([0x01, 0x03, 0x0c, 0x00], flags: 2, time: time, cutTo: nil, originalOverride: 2))
        // HCI: an event whose parameter length says 10 and carries 4.
        let t2 = s.tick()
        s.expect(
            "hci.length_mismatch", at: s.writer.add(.event, .received, [0x0e, 0x0a, 0x01, 0x03, 0x0c, 0x00], time: t2))
        // ACL: the header says 20 bytes, the record holds 10.
        let tick = s.tick()
        let junk = s.writer.add(
            .acl, .received, [0x40, 0x20, 0x14, 0x00] + [0x06, 0x00, 0x04, 0x00, 0x1b, 0x15, 0x00, 1, 2, 3], time: tick)
        s.expect("hci.length_mismatch", at: junk)
        // L2CAP: a PDU says 30 bytes and a new one starts after 10; that one says 2 (a notification cut
        // to its opcode and half a handle) and carries 8.
        s.acl(handle: 0x40, .received, boundary: 0b10, [0x1e, 0x00, 0x04, 0x00, 0x1b, 0x15, 0x00, 1, 2, 3])
        let lie = s.acl(
            handle: 0x40, .received, boundary: 0b10, [0x02, 0x00, 0x04, 0x00, 0x1b, 0x15, 0x00, 9, 9, 9, 9, 9])
        for id in ["l2cap.unexpected_start", "l2cap.overlength", "att.malformed"] { s.expect(id, at: lie) }
        // ATT: a Read By Type Response whose element length is 1.
        s.expect("att.malformed", at: s.att(handle: 0x40, .received, [0x09, 0x01, 0x02]))
        // A5: a frame that claims 200 payload bytes and gets 3 before the link drops.
        subscribe(&s)
        // The three value bytes of the ACL record above came first on this characteristic: junk before
        // the first frame, named where it began.
        s.att(handle: 0x40, .received, [0x1b, 0x15, 0x00] + Frame.encode(command: 0x05, sequence: 1, payload: [1]))
        s.expect("a5.resync", at: junk)
        s.expect(
            "a5.truncated",
            at: s.att(handle: 0x40, .received, [0x1b, 0x15, 0x00, 0xa5, 0x01, 0x05, 0x02, 0x00, 0xc8, 1, 2, 3]))
        s.disconnect(handle: 0x40)
        return make("lying_lengths.btsnoop", "lengths that lie at every layer: btsnoop, HCI, ACL, L2CAP, ATT, A5", s)
    }

    /// The session an app runs first: MTU 247, the A5 event characteristic (0x0015, UUID fff4) and its
    /// CCCD (0x0016) discovered, and notifications enabled.
    static func subscribe(_ s: inout LESession, handle: UInt16 = 0x40) {
        s.att(handle: handle, .sent, [0x02, 0xf7, 0x00])
        s.att(handle: handle, .received, [0x03, 0xf7, 0x00])
        s.att(handle: handle, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(handle: handle, .received, [0x09, 0x07, 0x14, 0x00, 0x10, 0x15, 0x00, 0xf4, 0xff])
        s.att(handle: handle, .sent, [0x04, 0x16, 0x00, 0x16, 0x00])
        s.att(handle: handle, .received, [0x05, 0x01, 0x16, 0x00, 0x02, 0x29])
        s.att(handle: handle, .sent, [0x12, 0x16, 0x00, 0x01, 0x00])
        s.att(handle: handle, .received, [0x13])
    }

    /// ACL fragments of two connections and both directions interleaved, 10 bytes each: all must
    /// reassemble into their A5 frames, with no diagnostic.
    static func interleavedACL() -> Case {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        s.connect(handle: 0x41, address: [0x44, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        for handle: UInt16 in [0x40, 0x41] {
            s.att(handle: handle, .sent, [0x02, 0xf7, 0x00])
            s.att(handle: handle, .received, [0x03, 0xf7, 0x00])
        }
        let streams: [(handle: UInt16, direction: Direction)] = [
            (0x40, .sent), (0x41, .received), (0x40, .received), (0x41, .sent),
        ]
        var fragments: [[(UInt16, Direction, UInt8, [UInt8])]] = []
        for (i, (handle, direction)) in streams.enumerated() {
            let frame = Frame.encode(
                command: direction == .sent ? 0x20 : 0xa0, sequence: UInt8(i), payload: Array(0..<40))
            let attHandle: UInt16 = direction == .sent ? 0x0013 : 0x0015
            let pdu = [direction == .sent ? 0x52 : 0x1b, UInt8(attHandle), 0] + frame
            let l2cap = le16(pdu.count) + le16(4) + pdu
            fragments.append(
                stride(from: 0, to: l2cap.count, by: 10).map { o in
                    (handle, direction, o == 0 ? 0b10 : 0b01, Array(l2cap[o..<min(o + 10, l2cap.count)]))
                })
        }
        var last: [Int: Int] = [:]
        for step in 0..<(fragments.map(\.count).max() ?? 0) {
            for (k, f) in fragments.enumerated() where step < f.count {
                last[k] = s.acl(handle: f[step].0, f[step].1, boundary: f[step].2, f[step].3)
            }
        }
        for (i, direction) in streams.map(\.direction).enumerated() {
            s.expectFrame(
                last[i] ?? 0, direction, direction == .sent ? 0x0013 : 0x0015,
                command: direction == .sent ? 0x20 : 0xa0,
                sequence: UInt8(i), payload: Array(0..<40))
        }
        return make("interleaved_acl.btsnoop", "ACL fragments of two connections and both directions interleaved", s)
    }

    /// An L2CAP PDU claiming 65,535 bytes on the LE ATT channel (whose MTU is at most 517): it is
    /// reassembled up to its length's bound and reported incomplete when the link drops.
    static func oversizedSDU() -> Case {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        s.acl(
            handle: 0x40, .received, boundary: 0b10,
            [0xff, 0xff, 0x04, 0x00, 0x1b, 0x15, 0x00] + [UInt8](repeating: 0xa5, count: 244))
        for _ in 0..<20 { s.acl(handle: 0x40, .received, boundary: 0b01, [UInt8](repeating: 0x5a, count: 251)) }
        s.disconnect(handle: 0x40)
        s.expect("l2cap.incomplete", at: s.lastRecord)
        // No ATT PDU ever completed on the link.
        s.expect("gatt.discovery.none", at: s.lastRecord)
        return make("oversized_sdu.btsnoop", "an L2CAP PDU claiming 65,535 bytes on the LE ATT channel", s)
    }

    /// RFCOMM: a frame with a two-byte length (EA bit clear) that is right, one whose length runs
    /// past its PDU, and one whose FCS is wrong.
    static func rfcommLengths() -> Case {
        var s = LESession()
        s.connectBREDR(handle: 0x0c, address: address)
        s.l2cap(handle: 0x0c, .sent, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x03, 0x00, 0x40, 0x00])
        s.l2cap(
            handle: 0x0c, .received, cid: 0x0001,
            [0x03, 0x01, 0x08, 0x00, 0x71, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00])
        s.rfcomm(handle: 0x0c, .sent, cid: 0x71, dlci: 0, control: 0x3f)
        s.rfcomm(handle: 0x0c, .received, cid: 0x40, dlci: 0, control: 0x73)
        s.rfcomm(handle: 0x0c, .sent, cid: 0x71, dlci: 4, control: 0x3f)
        s.rfcomm(handle: 0x0c, .received, cid: 0x40, dlci: 4, control: 0x73)
        s.rfcomm(handle: 0x0c, .sent, cid: 0x71, dlci: 4, control: 0xef, [UInt8](repeating: 0x41, count: 200))
        // Address, UIH, a two-byte length of 300, and only 5 bytes.
        s.expect(
            "rfcomm.malformed", at: s.l2cap(handle: 0x0c, .sent, cid: 0x71, [0x13, 0xef, 0x58, 0x02, 1, 2, 3, 4, 5]))
        s.expect(
            "rfcomm.fcs.bad", at: s.rfcomm(handle: 0x0c, .sent, cid: 0x71, dlci: 4, control: 0x3f, corruptFCS: true))
        s.disconnect(handle: 0x0c)
        return make("rfcomm_lengths.btsnoop", "RFCOMM length extensions: right, running past the PDU, and a bad FCS", s)
    }
}
