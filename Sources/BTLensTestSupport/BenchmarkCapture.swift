import BTLensCore
import BTLensDissect

/// The benchmark's capture (scripts/benchmark): a BR/EDR iAP2 session, then BLE sessions until the
/// size asked for. Each BLE session connects to a device no shipped definition binds (its frames
/// are found by A5 detection; random payloads would be dissector errors), raises the MTU to 247,
/// discovers the A5 characteristics, and exchanges A5 frames of mixed sizes (0–255 bytes of
/// payload) sent whole or split at random points across ATT values and 251- or 69-byte ACL
/// fragments: about 136 bytes a record, 2.2 M records in 300 MB (the issue reckons 1.6 M).
/// Every 50th session carries faults: a bad checksum, a sequence gap, a duplicate, junk bytes,
/// and a record the capture cut short. Deterministic: the same size gives the same bytes.
/// Written in pieces, never whole in memory.
public enum BenchmarkCapture {
    /// Writes about `bytes` of btsnoop to `write`; returns the records written.
    @discardableResult
    public static func generate(bytes target: Int, write: ([UInt8]) -> Void) -> Int {
        var rng = SplitMix(seed: 0x6274_6c65_6e73)
        let iap2 = SampleCaptures.bredrIAP2()
        write(iap2.bytes)
        var written = iap2.bytes.count
        var records = iap2.lastRecord
        var time = iap2.time
        var session = 0
        while written < target {
            var s = LESession(start: time)
            block(&s, number: session, &rng)
            let body = Array(s.bytes.dropFirst(16))
            write(body)
            written += body.count
            records += s.lastRecord
            time = s.time
            session += 1
        }
        return records
    }

    static func block(_ s: inout LESession, number: Int, _ rng: inout SplitMix) {
        let h: UInt16 = 0x0040 + UInt16(number % 16)
        // LE Data Length Extension (251) in nine sessions of ten, 27-byte-era controllers (69) in the tenth.
        s.aclFragment = number % 10 == 9 ? 69 : 251
        s.connect(handle: h, address: [0x55, 0x44, 0x33, 0x22, 0x11, 0x02])
        s.att(handle: h, .sent, [0x02, 0xf7, 0x00])
        s.att(handle: h, .received, [0x03, 0xf7, 0x00])
        s.att(handle: h, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(
            handle: h, .received,
            [0x09, 0x07, 0x12, 0x00, 0x04, 0x13, 0x00, 0xe1, 0xfe, 0x14, 0x00, 0x10, 0x15, 0x00, 0xe2, 0xfe])
        let faulty = number % 50 == 0
        var sequence: [Direction: UInt8] = [.sent: 0, .received: 0x80]
        for i in 0..<400 {
            let direction: Direction = i % 2 == 0 ? .sent : .received
            let payload = (0..<Int(rng.next() % 256)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            var seq = sequence[direction] ?? 0
            if faulty && i == 101 { seq &+= 1 }  // a gap
            if faulty && i == 202 { seq &-= 1 }  // a duplicate
            var frame = Frame.encode(command: direction == .sent ? 0x20 : 0xa0, sequence: seq, payload: payload)
            sequence[direction] = seq &+ 1
            if faulty && i == 300 { frame[frame.count - 1] &+= 1 }  // a bad checksum
            if faulty && i == 350 { frame = [0x11, 0x22, 0x33] + frame }  // junk before a frame
            // Apps mostly write a frame in one value (at most MTU - 3 = 244 bytes); every eighth is cut at random points.
            var sizes: [Int] = []
            var left = frame.count
            while left > 0 {
                let n = min(left, i % 8 == 0 ? Int(rng.next() % 244) + 1 : 244)
                sizes.append(n)
                left -= n
            }
            s.stream(handle: h, attHandle: direction == .sent ? 0x0013 : 0x0015, direction, frame, values: sizes)
        }
        if faulty {
            // A notification the capture cut short.
            s.acl(
                handle: h, .received, boundary: 0b10,
                [0x0c, 0x00, 0x04, 0x00, 0x1b, 0x15, 0x00, 0xa5, 0x01, 0xa0, 0x00, 0x00, 0x01, 0x00],
                cutTo: 9)
        }
        s.disconnect(handle: h)
    }
}
