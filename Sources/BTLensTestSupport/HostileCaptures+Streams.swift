import BTLensCapture
import BTLensCore
import BTLensDissect

extension HostileCaptures {
    /// A BR/EDR link with RFCOMM channel 3 open and iAP2 detected and synchronised on it.
    static func iap2Link() -> LESession {
        var s = LESession()
        s.connectBREDR(handle: 0x0c, address: address)
        s.l2cap(handle: 0x0c, .sent, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x03, 0x00, 0x40, 0x00])
        s.l2cap(
            handle: 0x0c, .received, cid: 0x0001,
            [0x03, 0x01, 0x08, 0x00, 0x71, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00])
        for dlci: UInt8 in [0, 6] {
            s.rfcomm(handle: 0x0c, .sent, cid: 0x71, dlci: dlci, control: 0x3f)
            s.rfcomm(handle: 0x0c, .received, cid: 0x40, dlci: dlci, control: 0x73)
        }
        let lsp: [UInt8] = [1, 8, 0x04, 0x00, 0x03, 0xe8, 0x00, 0x32, 0x1e, 0x04, 1, 0, 1, 2, 2, 1]
        s.rfcommStream(handle: 0x0c, .received, cid: 0x40, dlci: 6, [0xff, 0x55, 0x02, 0x00, 0xee, 0x10])
        s.rfcommStream(handle: 0x0c, .sent, cid: 0x71, dlci: 6, [0xff, 0x55, 0x02, 0x00, 0xee, 0x10])
        s.rfcommStream(
            handle: 0x0c, .received, cid: 0x40, dlci: 6,
            IAP2LinkPacket.encode(control: 0x80, psn: 0x20, pan: 0, session: 0, payload: lsp))
        s.rfcommStream(
            handle: 0x0c, .sent, cid: 0x71, dlci: 6,
            IAP2LinkPacket.encode(control: 0xc0, psn: 0x70, pan: 0x20, session: 0, payload: lsp))
        return s
    }

    /// iAP2 packets whose length field says 0 (less than a header), 9 (a header alone: an ACK) and
    /// 65,535 (more than the link ever carries before it drops).
    static func iap2Lengths() -> Case {
        var s = iap2Link()
        func header(_ length: Int, psn: UInt8) -> [UInt8] {
            var h: [UInt8] = [0xff, 0x5a, UInt8(length >> 8), UInt8(length & 0xff), 0x40, psn, 0x20, 0x00]
            h.append(IAP2LinkPacket.checksum(h))
            return h
        }
        s.rfcommStream(handle: 0x0c, .sent, cid: 0x71, dlci: 6, header(0, psn: 0x71))
        // The bad header's bytes are said skipped once the next packet is found.
        let nine = s.rfcommStream(handle: 0x0c, .sent, cid: 0x71, dlci: 6, header(9, psn: 0x71))
        s.expect("iap2.resync", at: nine[0])
        s.rfcommStream(
            handle: 0x0c, .sent, cid: 0x71, dlci: 6, header(65_535, psn: 0x72) + [UInt8](repeating: 0x11, count: 100))
        s.disconnect(handle: 0x0c)
        s.expect("iap2.truncated", at: s.lastRecord)
        return make("iap2_lengths.btsnoop", "iAP2 packets with lengths 0, 9 and 65,535", s)
    }

    /// An A5 stream on a discovered characteristic: a frame whose length runs past the end of its
    /// value and into the next frames, which are then taken as its payload (the framer cannot know
    /// better until the checksum fails), and the stream recovers on the frame after.
    static func a5PastTheEnd() -> Case {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        subscribe(&s)
        s.att(handle: 0x40, .received, [0x1b, 0x15, 0x00] + Frame.encode(command: 0x05, sequence: 1, payload: [1]))
        // Claims 40 payload bytes, carries 2; the next two frames (18 bytes) and 23 of a third fill it.
        s.att(handle: 0x40, .received, [0x1b, 0x15, 0x00, 0xa5, 0x01, 0x05, 0x02, 0x00, 0x28, 7, 7])
        var frames: [[UInt8]] = []
        for seq in UInt8(3)...5 {
            frames.append(Frame.encode(command: 0x05, sequence: seq, payload: [UInt8](repeating: seq, count: 20)))
        }
        let r = s.stream(handle: 0x40, attHandle: 0x15, .received, frames.flatMap { $0 }, values: [27, 27, 27])
        s.expect("a5.checksum.bad", at: r[1])
        s.expect("a5.resync", at: r[1])
        s.expect("a5.sequence.gap", at: r[2])
        s.disconnect(handle: 0x40)
        return make("a5_past_the_end.btsnoop", "an A5 length that runs past its value into the next frames", s)
    }

    /// A5 sequence numbers that jump ahead, repeat and wrap.
    static func sequenceJumps() -> Case {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        subscribe(&s)
        var records: [UInt8: Int] = [:]
        for seq: UInt8 in [1, 2, 200, 201, 201, 255, 0, 3] {
            s.frame(handle: 0x40, attHandle: 0x15, .received, command: 0x05, sequence: seq, payload: [seq])
            records[seq] = s.lastRecord
        }
        s.expect("a5.sequence.gap", at: records[200] ?? 0)
        s.expect("a5.sequence.duplicate", at: records[201] ?? 0)
        s.expect("a5.sequence.gap", at: records[255] ?? 0)
        s.expect("a5.sequence.gap", at: records[3] ?? 0)
        s.disconnect(handle: 0x40)
        return make("sequence_jumps.btsnoop", "A5 sequence numbers that jump, repeat and wrap", s)
    }

    /// `count` records of length 0: each is said, none is a packet, memory stays flat.
    static func zeroLength(_ count: Int) -> Case {
        var w = BTSnoopWriter()
        var expected: [String] = []
        for i in 0..<count {
            let n = w.addRaw([], flags: 0, time: 1_700_000_000_000_000 + Int64(i), cutTo: nil)
            if expected.count < 1_000_000 { expected.append("capture.record.empty #\(n)") }
        }
        return Case(
            file: "zero_length_records.btsnoop", about: "\(count) records of length 0", bytes: w.bytes,
            expected: expected.sorted())
    }

    /// Timestamps that go back an hour, jump to the year 2300, and come back.
    static func timeTravel() -> Case {
        var w = BTSnoopWriter()
        let t0: Int64 = 1_700_000_000_000_000
        let hour: Int64 = 3_600_000_000
        let reset: [UInt8] = [0x03, 0x0c, 0x00]
        w.add(.command, .sent, reset, time: t0)
        let back = w.add(.command, .sent, reset, time: t0 - hour)
        let future = w.add(.command, .sent, reset, time: 10_413_792_000_000_000)
        w.add(.command, .sent, reset, time: 10_413_792_000_000_001)
        let again = w.add(.command, .sent, reset, time: t0)
        return Case(
            file: "time_travel.btsnoop", about: "timestamps going back an hour, to 2300 and back",
            bytes: w.bytes,
            expected: [
                "capture.time.backwards #\(back)", "capture.time.absurd #\(future)",
                "capture.time.backwards #\(again)",
            ].sorted())
    }

    /// A PacketLogger file whose byte order flips from little- to big-endian after three records.
    static func pklgByteOrderFlip() -> Case {
        func record(_ type: UInt8, _ payload: [UInt8], big: Bool, second: UInt32) -> [UInt8] {
            [UInt32(9 + payload.count), second, 0].flatMap { v -> [UInt8] in
                let b = [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
                return big ? b : b.reversed()
            } + [type] + payload
        }
        var bytes: [UInt8] = []
        for (i, big) in [false, false, false, true, true, true].enumerated() {
            bytes += record(
                i % 2 == 0 ? 0x00 : 0x01, i % 2 == 0 ? [0x03, 0x0c, 0x00] : [0x0e, 0x04, 0x01, 0x03, 0x0c, 0x00],
                big: big, second: 1_700_000_000 + UInt32(i))
        }
        return Case(
            file: "pklg_byte_order_flip.pklg", about: "a PacketLogger file that changes byte order after three records",
            bytes: bytes, expected: ["capture.pklg.byte_order_changed #4"])
    }
}

extension HostileCaptures {
    /// A definition file built to exhaust the loader, and the start of the error it must give.
    public struct Definition {
        public var file: String
        public var about: String
        public var text: String
        public var error: String
    }

    public static var definitions: [Definition] {
        let laughs = (1...9).map { i in
            "l\(i): &l\(i) [" + Array(repeating: "*l\(i - 1)", count: 9).joined(separator: ",") + "]"
        }
        return [
            Definition(
                file: "deep_flow.yaml", about: "flow collections nested 100,000 deep",
                text: String(repeating: "[", count: 100_000),
                error: "deep_flow.yaml:1: brackets nested deeper than 32"),
            Definition(
                file: "deep_block.yaml", about: "block sequences nested 300,000 deep on one line",
                text: String(repeating: "- ", count: 300_000) + "x\n",
                error: "deep_block.yaml:1: YAML nested deeper than the 1000 levels btlens reads"),
            Definition(
                file: "huge.yaml", about: "a file one byte over 1 MiB",
                text: "protocol: huge\n#" + String(repeating: "x", count: (1 << 20) - 16) + "\n",
                error: "huge.yaml:-: file of 1048577 bytes; definitions are limited to 1048576"),
            Definition(
                file: "billion_laughs.yaml", about: "nine levels of nine aliases each (387 million nodes)",
                text: "protocol: laughs\nl0: &l0 \"lol\"\n" + laughs.joined(separator: "\n") + "\n",
                error: "billion_laughs.yaml:-: the file expands to more than 100000 YAML nodes (nested aliases?)"),
        ]
    }
}

extension HostileCaptures {
    /// `handles` links that each begin a 65,535-byte L2CAP PDU and never finish it, fed a fragment
    /// at a time in turn: without a bound on reassembly, memory grows by 64 KiB a link.
    public static func reassemblyFlood(handles: Int) -> [UInt8] {
        var s = LESession()
        let fragment = [UInt8](repeating: 0x5a, count: 251)
        for h in 0..<handles {
            s.acl(handle: UInt16(0x40 + h), .received, boundary: 0b10, [0xff, 0xff, 0x04, 0x00] + fragment.dropLast(4))
        }
        for _ in 0..<65_535 / 251 {
            for h in 0..<handles { s.acl(handle: UInt16(0x40 + h), .received, boundary: 0b01, fragment) }
        }
        return s.bytes
    }
}
