import BTLensCapture
import BTLensCore
import Foundation

/// A capture in one of the forms a user has, made from the sample captures, with where its
/// records and header fields are: mutants change those fields and splice those records.
public struct MutantBase {
    public enum FieldKind: Sendable { case length, time, other }

    /// An integer field of the file, little- or big-endian.
    public struct Field: Sendable {
        public var offset: Int
        public var width: Int
        public var bigEndian: Bool
        public var kind: FieldKind
        public var name: String
    }

    /// Which sample it was made from.
    public var name: String
    public var bytes: [UInt8]
    /// Whole records (or blocks, or zip entries): what splices copy, move and drop.
    public var records: [Range<Int>] = []
    public var fields: [Field] = []
    /// For a form that wraps another (a summary's compressed records, a zip's member): the inner
    /// capture, mutated first, and how it is wrapped again.
    public var inner: Inner?
    /// How the bytes become the file (the summary's base64 text); nil: as they are.
    public var render: (([UInt8]) -> [UInt8])?

    public final class Inner {
        public let base: MutantBase
        public let wrap: ([UInt8]) -> MutantBase
        init(_ base: MutantBase, _ wrap: @escaping ([UInt8]) -> MutantBase) {
            self.base = base
            self.wrap = wrap
        }
    }

    init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }

    mutating func field(_ offset: Int, _ width: Int, bigEndian: Bool, _ kind: FieldKind, _ name: String) {
        guard offset >= 0, offset + width <= bytes.count else { return }
        fields.append(Field(offset: offset, width: width, bigEndian: bigEndian, kind: kind, name: name))
    }

    func value(_ f: Field) -> UInt64 {
        let part = bytes[f.offset..<f.offset + f.width]
        return (f.bigEndian ? Array(part) : part.reversed()).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The HCI length fields of the packet at `at` (its H4 type byte first, unless `type` says the
    /// type): command and event parameter lengths, ACL data total length and the L2CAP length
    /// inside (Core Vol 4 Part E §5.4, Vol 3 Part A §3).
    mutating func hciFields(_ at: Int, type: UInt8?) {
        let (t, p) = type.map { ($0, at) } ?? (at < bytes.count ? bytes[at] : 0, at + 1)
        switch t {
        case 1: field(p + 2, 1, bigEndian: false, .length, "command parameter length")
        case 4: field(p + 1, 1, bigEndian: false, .length, "event parameter length")
        case 2:
            field(p + 2, 2, bigEndian: false, .length, "ACL data length")
            field(p + 4, 2, bigEndian: false, .length, "L2CAP length")
        default: break
        }
    }
}

/// The forms of capture the mutation test makes: every one btlens reads, each from the samples.
public enum MutantForm: String, CaseIterable, Sendable {
    case btsnoop1001 = "btsnoop-1001"
    case btsnoop1002 = "btsnoop-1002"
    case btsnoop2001 = "btsnoop-2001"
    case pklgBigEndian = "pklg-be"
    case pklgLittleEndian = "pklg-le"
    case pcap, pcapng, btsnooz, zip

    public var fileExtension: String {
        switch self {
        case .btsnoop1001, .btsnoop1002, .btsnoop2001: return "btsnoop"
        case .pklgBigEndian, .pklgLittleEndian: return "pklg"
        case .pcap: return "pcap"
        case .pcapng: return "pcapng"
        case .btsnooz: return "txt"
        case .zip: return "zip"
        }
    }

    /// The unmutated captures of this form.
    public var bases: [MutantBase] {
        let samples = SampleCaptures.all.map { (name: String($0.file.dropLast(8)), bytes: $0.session.bytes) }
        let datalink = { (b: [UInt8]) in Int(b[12]) << 24 | Int(b[13]) << 16 | Int(b[14]) << 8 | Int(b[15]) }
        switch self {
        case .btsnoop1001, .btsnoop1002, .btsnoop2001:
            let link = Int(rawValue.suffix(4))!
            return samples.filter { datalink($0.bytes) == link }.map { MutantBases.btsnoop($0.name, $0.bytes) }
        case .pklgBigEndian, .pklgLittleEndian:
            return samples.map {
                MutantBases.pklg($0.name, MutantBases.records($0.bytes), bigEndian: self == .pklgBigEndian)
            }
        case .pcap, .pcapng:
            return samples.flatMap { s in
                let plain = MutantBases.converted(
                    s.name, s.bytes, self == .pcap ? .pcap : .pcapng, monitor: datalink(s.bytes) == 2001)
                // Nanosecond timestamps too: pcap's other magic, pcapng's if_tsresol option.
                return [
                    plain, self == .pcap ? MutantBases.pcapNanoseconds(plain) : MutantBases.pcapngNanoseconds(plain),
                ]
            }
        case .btsnooz:
            return samples.filter { datalink($0.bytes) != 2001 }.flatMap { s in
                [1, 2].map { MutantBases.btsnooz(s.name, MutantBases.records(s.bytes), version: UInt8($0)) }
            }
        case .zip:
            return samples.map { s in MutantBases.zipped(MutantBases.btsnoop(s.name, s.bytes)) }
        }
    }
}

enum MutantBases {
    static func records(_ bytes: [UInt8]) -> [CaptureRecord] {
        guard var reader = try? CaptureFormat.open(MemorySource(bytes)) else { return [] }
        var out: [CaptureRecord] = []
        while let item = try? reader.next() { if case .record(let r) = item { out.append(r) } }
        return out
    }

    /// btsnoop: a 16-byte header (magic, version, datalink), then records of original length,
    /// included length, flags, drops (u32 BE each) and a u64 BE timestamp.
    static func btsnoop(_ name: String, _ bytes: [UInt8]) -> MutantBase {
        var b = MutantBase(name: name, bytes: bytes)
        b.field(8, 4, bigEndian: true, .other, "version")
        b.field(12, 4, bigEndian: true, .other, "datalink")
        let h4 = bytes.count > 15 && bytes[15] == 0xea || name.hasPrefix("h4_")
        var at = 16
        var n = 1
        while at + 24 <= bytes.count {
            let length = Int(b.value(.init(offset: at + 4, width: 4, bigEndian: true, kind: .length, name: "")))
            let end = min(at + 24 + length, bytes.count)
            b.records.append(at..<end)
            b.field(at, 4, bigEndian: true, .length, "record \(n) original length")
            b.field(at + 4, 4, bigEndian: true, .length, "record \(n) included length")
            b.field(at + 8, 4, bigEndian: true, .other, "record \(n) flags")
            b.field(at + 16, 8, bigEndian: true, .time, "record \(n) timestamp")
            if h4 { b.hciFields(at + 24, type: nil) }
            at = end
            n += 1
        }
        return b
    }

    /// PacketLogger: records of length (u32, not counting itself), seconds, microseconds (u32), type.
    static func pklg(_ name: String, _ records: [CaptureRecord], bigEndian: Bool) -> MutantBase {
        var b = MutantBase(name: name, bytes: [])
        for r in records {
            let received = r.direction == .received
            let (type, payload): (UInt8, [UInt8])
            switch r.kind {
            case .command: (type, payload) = (0x00, Array(r.payload))
            case .event: (type, payload) = (0x01, Array(r.payload))
            case .aclData: (type, payload) = (received ? 0x03 : 0x02, Array(r.payload))
            case .scoData: (type, payload) = (received ? 0x09 : 0x08, Array(r.payload))
            case .isoData: (type, payload) = (received ? 0x13 : 0x12, Array(r.payload))
            case .note, .unknown, .linkLayer: (type, payload) = (0xfc, Array(r.noteText.utf8))
            }
            let (seconds, micros) = r.timestamp.microseconds.quotientAndRemainder(dividingBy: 1_000_000)
            let at = b.bytes.count
            b.bytes +=
                u32(UInt32(9 + payload.count), bigEndian) + u32(UInt32(truncatingIfNeeded: seconds), bigEndian)
                + u32(UInt32(truncatingIfNeeded: micros), bigEndian) + [type] + payload
            b.records.append(at..<b.bytes.count)
            let n = b.records.count
            b.field(at, 4, bigEndian: bigEndian, .length, "record \(n) length")
            b.field(at + 4, 4, bigEndian: bigEndian, .time, "record \(n) seconds")
            b.field(at + 8, 4, bigEndian: bigEndian, .time, "record \(n) microseconds")
            b.field(at + 12, 1, bigEndian: bigEndian, .other, "record \(n) type")
            if type < 4 { b.hciFields(at + 13, type: [1, 4, 2, 2][Int(type)]) }
        }
        return b
    }

    /// The sample converted as `btlens convert` does (CaptureWriter), with its fields found.
    static func converted(_ name: String, _ bytes: [UInt8], _ format: CaptureWriter.Format, monitor: Bool) -> MutantBase
    {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "btlens-base-\(getpid())-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let writer = try CaptureWriter(path: path, format: format, monitor: monitor)
            for r in records(bytes) { writer.write(r) }
            writer.flush()
        } catch { return MutantBase(name: name, bytes: []) }
        let out = (try? Data(contentsOf: URL(fileURLWithPath: path))).map { [UInt8]($0) } ?? []
        return format == .pcap ? pcap(name, out) : pcapng(name, out)
    }

    /// pcap: a 24-byte header (magic, version, zone, sigfigs, snaplen, link type), then records of
    /// seconds, fraction, captured and original length (u32 each, in the magic's byte order).
    static func pcap(_ name: String, _ bytes: [UInt8]) -> MutantBase {
        var b = MutantBase(name: name, bytes: bytes)
        guard bytes.count >= 24 else { return b }
        let big = bytes[0] == 0xa1
        b.field(16, 4, bigEndian: big, .length, "snaplen")
        b.field(20, 4, bigEndian: big, .other, "link type")
        let monitor = b.value(b.fields[1]) == 254
        var at = 24
        while at + 16 <= bytes.count {
            let n = b.records.count + 1
            b.field(at, 4, bigEndian: big, .time, "record \(n) seconds")
            b.field(at + 4, 4, bigEndian: big, .time, "record \(n) fraction")
            b.field(at + 8, 4, bigEndian: big, .length, "record \(n) captured length")
            b.field(at + 12, 4, bigEndian: big, .length, "record \(n) original length")
            let length = Int(b.value(b.fields[b.fields.count - 2]))
            if !monitor { b.hciFields(at + 20, type: nil) }
            b.records.append(at..<min(at + 16 + length, bytes.count))
            at = b.records.last!.upperBound
        }
        return b
    }

    /// pcapng (little-endian, as CaptureWriter writes it): blocks of type, total length, body,
    /// total length again; an Interface Description Block's options; an Enhanced Packet Block's
    /// interface, timestamp (two u32), captured and original length.
    static func pcapng(_ name: String, _ bytes: [UInt8]) -> MutantBase {
        var b = MutantBase(name: name, bytes: bytes)
        var at = 0
        var monitor = false
        while at + 12 <= bytes.count {
            let n = b.records.count + 1
            let type = b.value(.init(offset: at, width: 4, bigEndian: false, kind: .other, name: ""))
            let length = Int(b.value(.init(offset: at + 4, width: 4, bigEndian: false, kind: .length, name: "")))
            guard length >= 12, at + length <= bytes.count else { break }
            b.records.append(at..<at + length)
            b.field(at, 4, bigEndian: false, .other, "block \(n) type")
            b.field(at + 4, 4, bigEndian: false, .length, "block \(n) length")
            b.field(at + length - 4, 4, bigEndian: false, .length, "block \(n) trailing length")
            switch type {
            case 0x0a0d_0d0a:
                b.field(at + 12, 4, bigEndian: false, .other, "section version")
                b.field(at + 16, 8, bigEndian: false, .length, "section length")
            case 1:
                b.field(at + 8, 2, bigEndian: false, .other, "link type")
                b.field(at + 12, 4, bigEndian: false, .length, "snaplen")
                monitor = bytes[at + 8] == 254
                var o = at + 16
                while o + 4 <= at + length - 4 {
                    b.field(o, 2, bigEndian: false, .other, "option code")
                    b.field(o + 2, 2, bigEndian: false, .length, "option length")
                    let l = Int(bytes[o + 2]) | Int(bytes[o + 3]) << 8
                    if bytes[o] == 9 { b.field(o + 4, 1, bigEndian: false, .time, "if_tsresol") }
                    o += 4 + (l + 3) & ~3
                }
            case 6:
                b.field(at + 8, 4, bigEndian: false, .other, "block \(n) interface")
                b.field(at + 12, 4, bigEndian: false, .time, "block \(n) timestamp (high)")
                b.field(at + 16, 4, bigEndian: false, .time, "block \(n) timestamp (low)")
                b.field(at + 20, 4, bigEndian: false, .length, "block \(n) captured length")
                b.field(at + 24, 4, bigEndian: false, .length, "block \(n) original length")
                if !monitor { b.hciFields(at + 32, type: nil) }
            default: break
            }
            at += length
        }
        return b
    }

    /// The pcap with nanosecond timestamps (magic a1b23c4d): fractions times 1,000.
    static func pcapNanoseconds(_ base: MutantBase) -> MutantBase {
        var bytes = base.bytes
        guard bytes.count >= 24 else { return base }
        let big = bytes[0] == 0xa1
        bytes.replaceSubrange(0..<4, with: u32(0xa1b2_3c4d, big))
        for f in base.fields where f.name.hasSuffix("fraction") {
            bytes.replaceSubrange(
                f.offset..<f.offset + 4, with: u32(UInt32(truncatingIfNeeded: base.value(f) * 1000), big))
        }
        return pcap(base.name + "-ns", bytes)
    }

    /// The pcapng with an if_tsresol option of 9 (nanoseconds) and its timestamps times 1,000.
    static func pcapngNanoseconds(_ base: MutantBase) -> MutantBase {
        var out: [UInt8] = []
        for r in base.records {
            var block = Array(base.bytes[r])
            let type = UInt32(block[0]) | UInt32(block[1]) << 8
            if type == 1, block.count == 20 {
                // if_tsresol (code 9, length 1, value 9, padded), then opt_endofopt.
                block = Array(block[0..<16]) + [9, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0] + u32(32, false)
                block.replaceSubrange(4..<8, with: u32(32, false))
            } else if type == 6, block.count >= 20 {
                let t = (UInt64(le32(block, 12)) << 32 | UInt64(le32(block, 16))) &* 1000
                block.replaceSubrange(
                    12..<20, with: u32(UInt32(t >> 32), false) + u32(UInt32(truncatingIfNeeded: t), false))
            }
            out += block
        }
        return pcapng(base.name + "-ns", out)
    }

    static func u32(_ v: UInt32, _ bigEndian: Bool) -> [UInt8] {
        let le = [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
        return bigEndian ? le.reversed() : le
    }

    static func le32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
}
