/// The headers of a pcap or pcapng file walked field by field in Swift, as libpcap reads them.
/// libpcap is not built for fuzzing: to the fuzzer a mutant that changes a timestamp, a length or
/// if_tsresol looks like its parent, and is dropped. Here each class of value is a branch of its
/// own (new coverage keeps the mutant), and the comparisons are what -use_value_profile=1 and
/// the mutator's table of compared values work from. Unoptimized, so no branch becomes a select.
enum PcapFields {
    /// What was walked, so that nothing here is optimized away.
    nonisolated(unsafe) static var seen = 0

    /// A file's fields in the byte order its header declares.
    struct Fields {
        let bytes: [UInt8]
        var bigEndian: Bool

        func u16(_ at: Int) -> UInt16? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            let (a, b) = (UInt16(bytes[at]), UInt16(bytes[at + 1]))
            return bigEndian ? a << 8 | b : b << 8 | a
        }

        func u32(_ at: Int) -> UInt32? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return bigEndian ? UInt32(a) << 16 | UInt32(b) : UInt32(b) << 16 | UInt32(a)
        }

        func u64(_ at: Int) -> UInt64? {
            guard let a = u32(at), let b = u32(at + 4) else { return nil }
            return bigEndian ? UInt64(a) << 32 | UInt64(b) : UInt64(b) << 32 | UInt64(a)
        }
    }

    /// pcap (libpcap savefile.c): a 24-byte header, then 16-byte record headers.
    @_optimize(none)
    static func pcap(_ bytes: [UInt8]) {
        var f = Fields(bytes: bytes, bigEndian: true)
        guard let magic = f.u32(0) else { return }
        let nanoseconds: Bool
        switch magic {
        case 0xa1b2_c3d4: nanoseconds = false
        case 0xd4c3_b2a1: (nanoseconds, f.bigEndian) = (false, false)
        case 0xa1b2_3c4d: nanoseconds = true
        case 0x4d3c_b2a1: (nanoseconds, f.bigEndian) = (true, false)
        default: return
        }
        guard let major = f.u16(4), let minor = f.u16(6), let snaplen = f.u32(16), let link = f.u32(20) else {
            seen &+= 1
            return
        }
        if major != 2 { seen &+= 2 } else if minor != 4 { seen &+= 3 }
        lengthClass(snaplen, limit: 262_144)
        linkClass(UInt16(truncatingIfNeeded: link))
        if link >> 16 != 0 { seen &+= 4 }
        var at = 24
        var count = 0
        while count < 4096, let seconds = f.u32(at), let fraction = f.u32(at + 4), let caplen = f.u32(at + 8),
            let len = f.u32(at + 12)
        {
            if fraction >= (nanoseconds ? 1_000_000_000 : 1_000_000) { seen &+= 5 }
            timeClass(Int64(seconds))
            packetClass(caplen: caplen, len: len, snaplen: snaplen, room: bytes.count - at - 16)
            at += 16 + Int(caplen)
            count += 1
        }
    }

    /// pcapng (draft-ietf-opsawg-pcapng): blocks of type, length, body, length; the byte order is
    /// the Section Header Block's; each interface has its link type and if_tsresol.
    @_optimize(none)
    static func pcapng(_ bytes: [UInt8]) {
        var f = Fields(bytes: bytes, bigEndian: false)
        var interfaces: [(link: UInt16, snaplen: UInt32, units: UInt64, offset: Int64)] = []
        var at = 0
        var count = 0
        while count < 4096, let type = f.u32(at), let declared = f.u32(at + 4) {
            count += 1
            if type == 0x0a0d_0d0a {
                switch f.u32(at + 8) {
                case 0x1a2b_3c4d: break
                case 0x4d3c_2b1a: f.bigEndian.toggle()
                default:
                    seen &+= 10
                    return
                }
                interfaces = []
            }
            guard let length = blockLength(f, at: at, declared: declared) else { return }
            let body = at + 8
            let end = at + Int(length) - 4
            switch type {
            case 0x0a0d_0d0a:
                if f.u16(body + 4) != 1 { seen &+= 16 }
                if let size = f.u64(body + 8), size != UInt64.max, size % 4 != 0 { seen &+= 17 }
            case 1:
                guard let link = f.u16(body), let snaplen = f.u32(body + 4) else {
                    seen &+= 18
                    return
                }
                linkClass(link)
                lengthClass(snaplen, limit: 262_144)
                let (units, offset) = options(f, from: body + 8, to: end)
                interfaces.append((link, snaplen, units, offset))
            case 6, 2:
                // Enhanced (and the obsolete Packet) block: interface, time, captured and original lengths.
                let id = type == 6 ? f.u32(body) : f.u16(body).map(UInt32.init)
                guard let id, let high = f.u32(body + 4), let low = f.u32(body + 8),
                    let caplen = f.u32(body + 12), let len = f.u32(body + 16)
                else {
                    seen &+= 19
                    return
                }
                guard Int(id) < interfaces.count else {
                    seen &+= 20
                    return
                }
                let i = interfaces[Int(id)]
                time(UInt64(high) << 32 | UInt64(low), units: i.units, offset: i.offset)
                packetClass(caplen: caplen, len: len, snaplen: i.snaplen, room: end - body - 20)
            case 3:
                guard let len = f.u32(body) else {
                    seen &+= 21
                    return
                }
                guard let first = interfaces.first else {
                    seen &+= 22
                    return
                }
                packetClass(caplen: min(len, first.snaplen), len: len, snaplen: first.snaplen, room: end - body - 4)
            case 4, 5: seen &+= 23
            case 0x0000_0bad, 0x4000_0bad: seen &+= 24
            default: seen &+= 25
            }
            at += Int(length)
        }
    }

    /// The Block Total Length at `at` (read again after a Section Header Block may have changed the
    /// byte order), and its copy at the block's end; nil where a reader must stop: under 12 bytes,
    /// not a multiple of 4, or past the end of the file.
    @_optimize(none)
    static func blockLength(_ f: Fields, at: Int, declared: UInt32) -> UInt32? {
        guard let length = f.u32(at + 4) else { return nil }
        if declared != length { seen &+= 11 }
        if length < 12 {
            seen &+= 12
            return nil
        }
        if length % 4 != 0 {
            seen &+= 13
            return nil
        }
        guard Int(length) <= f.bytes.count - at else {
            seen &+= 14
            return nil
        }
        if f.u32(at + Int(length) - 4) != length { seen &+= 15 }
        return length
    }

    /// An Interface Description Block's options: if_tsresol (9) and if_tsoffset (14).
    @_optimize(none)
    static func options(_ f: Fields, from start: Int, to end: Int) -> (units: UInt64, offset: Int64) {
        var (units, offset): (UInt64, Int64) = (1_000_000, 0)
        var at = start
        while at + 4 <= end, let code = f.u16(at), let length = f.u16(at + 2) {
            if code == 0 { break }
            if Int(length) > end - at - 4 { return (units, offset) }
            switch (code, length) {
            case (9, 1):
                let v = f.bytes[at + 4]
                let exponent = UInt64(v & 0x7f)
                if v & 0x80 != 0 {
                    if exponent > 63 { seen &+= 30 } else { units = 1 << exponent }
                    if exponent == 0 { seen &+= 31 } else if exponent > 20 { seen &+= 32 }
                } else if exponent > 19 {
                    seen &+= 33
                } else {
                    units = (0..<exponent).reduce(1) { v, _ in v * 10 }
                    if exponent < 6 { seen &+= 34 } else if exponent > 9 { seen &+= 35 }
                }
            case (9, _): seen &+= 36
            case (14, 8):
                offset = Int64(bitPattern: f.u64(at + 4) ?? 0)
                timeClass(offset)
            default: seen &+= 37
            }
            at += 4 + (Int(length) + 3) / 4 * 4
        }
        return (units, offset)
    }

    /// A pcapng timestamp as libpcap splits it: seconds and a fraction in if_tsresol units, plus if_tsoffset.
    @_optimize(none)
    static func time(_ t: UInt64, units: UInt64, offset: Int64) {
        let seconds = t / units
        let fraction = t % units
        if fraction >= 1_000_000 && units > 1_000_000 { seen &+= 40 }
        if seconds > UInt64(Int64.max) {
            seen &+= 41
            return
        }
        let (shifted, overflow) = Int64(seconds).addingReportingOverflow(offset)
        if overflow {
            seen &+= 42
            return
        }
        timeClass(shifted)
    }

    /// Seconds since 1970: negative, plausible, past 2100, too many to count in microseconds.
    @_optimize(none)
    static func timeClass(_ seconds: Int64) {
        if seconds < 0 {
            seen &+= 50
        } else if seconds == 0 {
            seen &+= 51
        } else if seconds < 946_684_800 {
            seen &+= 52
        } else if seconds < 4_102_444_800 {
            seen &+= 53
        } else if seconds <= Int64.max / 1_000_000 {
            seen &+= 54
        } else {
            seen &+= 55
        }
    }

    @_optimize(none)
    static func lengthClass(_ value: UInt32, limit: UInt32) {
        if value == 0 {
            seen &+= 60
        } else if value > limit {
            seen &+= 61
        } else if value >= 0x8000_0000 {
            seen &+= 62
        } else if value < 4 {
            seen &+= 63
        }
    }

    @_optimize(none)
    static func linkClass(_ link: UInt16) {
        switch link {
        case 187: seen &+= 70
        case 201: seen &+= 71
        case 254: seen &+= 72
        case 251, 255, 256, 272: seen &+= 73
        default: seen &+= 74
        }
    }

    /// A record's captured and original lengths against each other, the snapshot length and the bytes left.
    @_optimize(none)
    static func packetClass(caplen: UInt32, len: UInt32, snaplen: UInt32, room: Int) {
        if caplen == 0 { seen &+= 80 } else if caplen < 4 { seen &+= 81 }
        if Int(caplen) > room { seen &+= 82 }
        if caplen > snaplen { seen &+= 83 }
        if caplen > 262_144 { seen &+= 84 }
        if len < caplen { seen &+= 85 } else if len > caplen { seen &+= 86 }
        if len >= 0x8000_0000 { seen &+= 87 }
    }
}
