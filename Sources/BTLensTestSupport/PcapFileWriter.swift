import BTLensCapture
import BTLensCore

/// Writes pcap and pcapng files byte by byte in every form btlens reads: each HCI link type (187 H4,
/// 201 H4 with a direction, 254 Linux monitor) and LE air link type (251, 256, 272), either byte order, pcap's microsecond and nanosecond
/// magics, and pcapng's if_tsresol in powers of ten or of two. Layouts: pcap as libpcap's savefile.c
/// reads it; pcapng from draft-ietf-opsawg-pcapng (SHB 4.1, IDB 4.2, EPB 4.3, SPB 4.4, ISB 4.6).
public struct PcapFileWriter {
    public enum LinkType: UInt16, CaseIterable, Sendable {
        case h4 = 187
        case h4WithDirection = 201
        case monitor = 254
        case leLinkLayer = 251
        case leWithPseudoHeader = 256
        case nordic = 272

        /// An over-the-air link type: it carries `linkLayer` records, no HCI.
        public var isAir: Bool { [.leLinkLayer, .leWithPseudoHeader, .nordic].contains(self) }
    }

    public enum Layout: Sendable, Equatable {
        case pcap(nanoseconds: Bool)
        /// if_tsresol as the option holds it (10^-n, or 2^-n with the top bit set); nil: no option (10^-6).
        case pcapng(tsresol: UInt8?)
    }

    public let link: LinkType
    public let layout: Layout
    public let bigEndian: Bool
    public private(set) var bytes: [UInt8] = []

    public init(link: LinkType, layout: Layout, bigEndian: Bool = false) {
        (self.link, self.layout, self.bigEndian) = (link, layout, bigEndian)
        switch layout {
        case .pcap(let nanoseconds):
            bytes =
                u32(nanoseconds ? 0xa1b2_3c4d : 0xa1b2_c3d4) + u16(2) + u16(4) + u32(0) + u32(0) + u32(262_144)
                + u32(UInt32(link.rawValue))
        case .pcapng(let tsresol):
            block(
                0x0a0d_0d0a,
                u32(0x1a2b_3c4d) + u16(1) + u16(0) + u32(0xffff_ffff) + u32(0xffff_ffff)
                    + option(4, Array("btlens-fuzz".utf8)) + u32(0))
            let resolution = tsresol.map { option(9, [$0]) } ?? []
            block(
                1,
                u16(link.rawValue) + u16(0) + u32(262_144) + option(2, Array("bluetooth0".utf8)) + resolution + u32(0))
        }
    }

    /// Adds a record as the link type carries it; false for what it cannot carry (notes in H4).
    @discardableResult
    public mutating func add(_ r: CaptureRecord) -> Bool {
        guard let packet = packet(r) else { return false }
        add(packet: packet, microseconds: r.timestamp.microseconds, direction: r.direction)
        return true
    }

    /// Adds a record's bytes as they are, the link type's header included (hostile ones too).
    public mutating func add(packet: [UInt8], microseconds micros: Int64, direction: Direction? = nil) {
        let micros = max(micros, 0)
        let (seconds, fraction) = (UInt64(micros / 1_000_000), UInt64(micros % 1_000_000))
        switch layout {
        case .pcap(let nanoseconds):
            bytes +=
                u32(UInt32(truncatingIfNeeded: seconds)) + u32(UInt32(fraction) * (nanoseconds ? 1000 : 1))
                + u32(UInt32(packet.count)) + u32(UInt32(packet.count)) + packet
        case .pcapng(let tsresol):
            let code = tsresol ?? 6
            let units: UInt64 = code & 0x80 != 0 ? 1 << UInt64(code & 0x7f) : (0..<code).reduce(1) { v, _ in v * 10 }
            let t = seconds * units + fraction * units / 1_000_000
            // epb_flags: inbound (1) or outbound (2), as Wireshark writes it.
            let flags = option(2, u32(direction == .received ? 1 : direction == .sent ? 2 : 0))
            block(
                6,
                u32(0) + u32(UInt32(t >> 32)) + u32(UInt32(t & 0xffff_ffff)) + u32(UInt32(packet.count))
                    + u32(UInt32(packet.count)) + padded(packet) + flags + u32(0))
        }
    }

    /// A Simple Packet Block: no interface, no time (pcapng only).
    public mutating func addSimple(_ packet: [UInt8]) {
        block(3, u32(UInt32(packet.count)) + padded(packet))
    }

    /// An Interface Statistics Block with the time and packets received (pcapng only).
    public mutating func addStatistics(received: UInt64) {
        block(5, u32(0) + u32(0) + u32(0) + option(4, u64(received)) + u32(0))
    }

    /// A capture's records: a sample written in each form.
    public static func records(of capture: [UInt8]) -> [CaptureRecord] {
        guard var reader = try? CaptureFormat.open(MemorySource(capture)) else { return [] }
        var out: [CaptureRecord] = []
        while let item = try? reader.next() { if case .record(let r) = item { out.append(r) } }
        return out
    }

    /// The packet with the link type's pseudo-header: H4's type byte, 201's big-endian direction,
    /// 254's big-endian index and opcode (BlueZ monitor opcodes, notes as 12 with index 0xffff).
    private func packet(_ r: CaptureRecord) -> [UInt8]? {
        let types: [RecordKind: UInt8] = [.command: 1, .aclData: 2, .scoData: 3, .event: 4, .isoData: 5]
        let received = r.direction == .received
        guard link.isAir == (r.kind == .linkLayer) else { return nil }
        let air = r.air ?? AirPacket()
        switch link {
        case .leLinkLayer: return Array(r.payload)
        case .leWithPseudoHeader: return AirHeaderWriter.pseudoHeader(air) + Array(r.payload)
        case .nordic:
            return AirHeaderWriter.nordic(
                air, packetLength: r.payload.count, counter: UInt16(truncatingIfNeeded: r.number))
                + Array(r.payload)
        case .h4, .h4WithDirection:
            guard let type = types[r.kind] else { return nil }
            return (link == .h4 ? [] : be32(received ? 1 : 0)) + [type] + Array(r.payload)
        case .monitor:
            let opcodes: [RecordKind: UInt16] = [
                .command: 2, .event: 3, .aclData: received ? 5 : 4,
                .scoData: received ? 7 : 6, .isoData: received ? 19 : 18, .note: 12,
            ]
            guard let opcode = opcodes[r.kind] else { return nil }
            let note = r.kind == .note
            return be16(note ? 0xffff : r.controllerIndex) + be16(opcode)
                + (note ? Array(r.noteText.utf8) + [0] : Array(r.payload))
        }
    }

    private mutating func block(_ type: UInt32, _ body: [UInt8]) {
        let length = u32(UInt32(12 + body.count))
        bytes += u32(type) + length + body + length
    }

    private func option(_ code: UInt16, _ value: [UInt8]) -> [UInt8] {
        u16(code) + u16(UInt16(value.count)) + padded(value)
    }
    private func padded(_ b: [UInt8]) -> [UInt8] { b + Array(repeating: 0, count: (4 - b.count % 4) % 4) }
    private func u16(_ v: UInt16) -> [UInt8] { bigEndian ? be16(v) : [UInt8(v & 0xff), UInt8(v >> 8)] }
    private func u32(_ v: UInt32) -> [UInt8] { bigEndian ? be32(v) : be32(v).reversed() }
    /// A 64-bit option value is one number in the section's byte order.
    private func u64(_ v: UInt64) -> [UInt8] {
        let (high, low) = (u32(UInt32(v >> 32)), u32(UInt32(v & 0xffff_ffff)))
        return bigEndian ? high + low : low + high
    }
    private func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xff)] }
}
