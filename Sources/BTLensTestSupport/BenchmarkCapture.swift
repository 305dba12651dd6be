import BTLensCore
import BTLensDissect

/// The benchmark's capture (scripts/benchmark): what a user's capture holds. Seven BLE sessions in
/// ten are with an Aurora headphone (Dissectors/aurora-headphones.yaml binds its characteristics):
/// commands with typed fields, enums, flags, a group and repeats, each answered, firmware upload
/// chunks as the bulk of the bytes, and events. Two in ten are with a device no definition binds
/// (its A5 frames are found by detection: 0–255 random payload bytes). One in ten is an iAP2
/// External Accessory session of the Lawaken lamp (Dissectors/lawaken-lamp.yaml binds it by its
/// protocol string). Frames are sent whole or split at random points across ATT values and 251- or
/// 69-byte ACL fragments. Every 50th session carries faults: a bad checksum, a sequence gap, a
/// duplicate, junk bytes, an unanswered request, a short payload, and a record the capture cut
/// short. Deterministic: the same size gives the same bytes. Written in pieces, never whole in memory.
public enum BenchmarkCapture {
    /// Writes about `bytes` of btsnoop to `write`; returns the records written. With `framing`, the
    /// Aurora sessions' frames are in that framing instead of A5.
    @discardableResult
    public static func generate(
        bytes target: Int, framing: BenchmarkFraming? = nil, write: ([UInt8]) -> Void
    ) -> Int {
        var rng = SplitMix(seed: 0x6274_6c65_6e73)
        let iap2 = SampleCaptures.bredrIAP2()
        write(iap2.bytes)
        var written = iap2.bytes.count
        var records = iap2.lastRecord
        var time = iap2.time
        var session = 0
        while written < target {
            var s = LESession(start: time)
            switch session % 10 {
            case 3, 8: unboundBlock(&s, number: session, &rng)
            case 5: iap2Block(&s, number: session, &rng)
            default: auroraBlock(&s, number: session, framing, &rng)
            }
            let body = Array(s.bytes.dropFirst(16))
            write(body)
            written += body.count
            records += s.lastRecord
            time = s.time
            session += 1
        }
        return records
    }

    /// A device no definition binds: 400 frames of random payloads on characteristics 0xFEE1/0xFEE2.
    static func unboundBlock(_ s: inout LESession, number: Int, _ rng: inout SplitMix) {
        let h = connect(&s, number: number, address: [0x55, 0x44, 0x33, 0x22, 0x11, 0x02], uuids: (0xfee1, 0xfee2))
        let faulty = number % 50 == 3
        var sequence: [Direction: UInt8] = [.sent: 0, .received: 0x80]
        for i in 0..<400 {
            let direction: Direction = i % 2 == 0 ? .sent : .received
            var seq = sequence[direction] ?? 0
            if faulty && i == 101 { seq &+= 1 }  // a gap
            if faulty && i == 202 { seq &-= 1 }  // a duplicate
            var frame = Frame.encode(
                command: direction == .sent ? 0x20 : 0xa0, sequence: seq, payload: rng.bytes(rng.below(256)))
            sequence[direction] = seq &+ 1
            if faulty && i == 300 { frame[frame.count - 1] &+= 1 }  // a bad checksum
            if faulty && i == 350 { frame = [0x11, 0x22, 0x33] + frame }  // junk before a frame
            send(&s, handle: h, direction, frame, cut: i % 8 == 0, &rng)
        }
        end(&s, handle: h, cutRecord: faulty)
    }

    /// LE connection, MTU 247, and discovery of a write characteristic at handle 0x0013 and a
    /// notifying one at 0x0015 with the given UUIDs. Returns the connection handle.
    static func connect(
        _ s: inout LESession, number: Int, address: [UInt8], uuids: (UInt16, UInt16)
    ) -> UInt16 {
        let h: UInt16 = 0x0040 + UInt16(number % 16)
        // LE Data Length Extension (251) in nine sessions of ten, 27-byte-era controllers (69) in the tenth.
        s.aclFragment = number % 10 == 9 ? 69 : 251
        s.connect(handle: h, address: address)
        s.att(handle: h, .sent, [0x02, 0xf7, 0x00])
        s.att(handle: h, .received, [0x03, 0xf7, 0x00])
        s.att(handle: h, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(
            handle: h, .received,
            [0x09, 0x07] + SampleCaptures.chr(0x0012, 0x04, 0x0013, uuids.0)
                + SampleCaptures.chr(0x0014, 0x10, 0x0015, uuids.1))
        return h
    }

    /// A frame as Write Commands to 0x0013 (sent) or Notifications of 0x0015 (received). Apps
    /// mostly write a frame in one value (at most MTU - 3 = 244 bytes); `cut` splits it at random points.
    static func send(
        _ s: inout LESession, handle h: UInt16, _ direction: Direction, _ frame: [UInt8], cut: Bool,
        _ rng: inout SplitMix
    ) {
        var sizes: [Int] = []
        var left = frame.count
        while left > 0 {
            let n = min(left, cut ? rng.below(244) + 1 : 244)
            sizes.append(n)
            left -= n
        }
        s.stream(handle: h, attHandle: direction == .sent ? 0x0013 : 0x0015, direction, frame, values: sizes)
    }

    /// Disconnects; in a faulty session, first a notification the capture cut short.
    static func end(_ s: inout LESession, handle h: UInt16, cutRecord: Bool) {
        if cutRecord {
            s.acl(
                handle: h, .received, boundary: 0b10,
                [0x0c, 0x00, 0x04, 0x00, 0x1b, 0x15, 0x00, 0xa5, 0x01, 0xa0, 0x00, 0x00, 0x01, 0x00],
                cutTo: 9)
        }
        s.disconnect(handle: h)
    }
}
