import BTLensCore
import CPcap

/// Writes records to a file Wireshark opens: btsnoop (1002, or 2001 when the input has notes or
/// controller indexes), pcap through libpcap's dumper, or pcapng (blocks written here: libpcap
/// 1.10 cannot write pcapng). Timestamps, direction and original lengths are kept.
public final class CaptureWriter {
    public enum Format: String, CaseIterable, Sendable { case btsnoop, pcap, pcapng }

    public let format: Format
    /// Monitor layout (btsnoop 2001, LINKTYPE 254) keeps notes and controller indexes; H4 keeps neither.
    public let monitor: Bool
    /// For over-the-air LE packets (a sniffer's capture), the link type written: 251 (the packet
    /// alone) or 256 (with a pseudo-header from what each record's `air` says, for 256 and 272).
    public let air: Int?
    private var file: UnsafeMutablePointer<FILE>?
    private var dumper: OpaquePointer?
    private let dead: OpaquePointer?
    public private(set) var written = 0
    /// The `errno` of the first write that failed (a full disk, a closed pipe); nothing is written after it.
    public private(set) var failure: Int32?
    public private(set) var skipped = 0
    /// Records whose time the format cannot hold (pcap: 1970 to 2038 as libpcap reads it; pcapng:
    /// nothing before 1970; btsnoop: i64 µs since year 0): written as the nearest it holds, counted.
    public private(set) var clampedTimes = 0

    /// The link type that keeps the records of a capture of `linkType`, when it is over the air.
    public static func airLinkType(keeping linkType: Int) -> Int? {
        linkType == 251 ? 251 : [256, 272].contains(linkType) ? 256 : nil
    }

    public init(path: String, format: Format, monitor: Bool, air: Int? = nil) throws(CaptureOpenError) {
        self.format = format
        self.monitor = monitor
        self.air = air
        if air != nil && format == .btsnoop {
            throw .cannotOpen(
                path: path, reason: "btsnoop holds HCI, not over-the-air LE packets: use .pcap or .pcapng")
        }
        if format == .pcap {
            guard let d = pcap_open_dead(Int32(clamping: air ?? (monitor ? 254 : 201)), 262_144) else {
                throw .cannotOpen(path: path, reason: "libpcap cannot start a dump")
            }
            guard let dump = pcap_dump_open(d, path) else {
                // libpcap's message names the path again.
                let reason = OS.openFailure(path, OS.errno)
                pcap_close(d)
                throw .cannotOpen(path: path, reason: reason)
            }
            dead = d
            dumper = dump
            file = nil
            return
        }
        // "-" is standard output, as libpcap's dump takes it: stdio's, which `close` leaves open.
        guard let f = path == "-" ? OS.standardOutput : OS.fopen(path, "wb") else {
            throw .cannotOpen(path: path, reason: OS.openFailure(path, OS.errno))
        }
        file = f
        dead = nil
        dumper = nil
        switch format {
        case .btsnoop:
            put(CaptureFormat.btsnoopMagic + be32(1) + be32(monitor ? 2001 : 1002))
        case .pcapng:
            // Section Header Block (byte-order magic, version 1.0, unknown length), then one Interface
            // Description Block.
            let unknownLength = [UInt8](repeating: 0xff, count: 8)
            put(le32(0x0a0d_0d0a) + le32(28) + le32(0x1a2b_3c4d) + [1, 0, 0, 0] + unknownLength + le32(28))
            let linkType = UInt16(clamping: air ?? (monitor ? 254 : 201))
            put(le32(1) + le32(20) + le16(linkType) + [0, 0] + le32(262_144) + le32(20))
        case .pcap:
            break
        }
    }

    deinit {
        if let dumper { pcap_dump_close(dumper) }
        if let dead { pcap_close(dead) }
        if let file, file != OS.standardOutput { OS.fclose(file) }
    }

    /// Flushes what was written (the file stays open until the writer goes away); the `errno` of
    /// the first write that failed on the way (`failure`), or nil.
    @discardableResult
    public func flush() -> Int32? {
        guard failure == nil else { return failure }
        if let dumper, pcap_dump_flush(dumper) != 0 { failure = OS.errno }
        if let file, OS.fflush(file) != 0 { failure = OS.errno }
        return failure
    }

    /// Flushes and closes the file (standard output stays open): the `errno` of the first write that
    /// failed, or of the close (what a full disk says last), or nil. Nothing is written after it.
    public func close() -> Int32? {
        flush()
        // libpcap's close says nothing of its own (its flush above did), and closes stdio's standard
        // output for "-": left to `deinit`.
        if let dumper, let stream = pcap_dump_file(dumper), stream != OS.standardOutput {
            pcap_dump_close(dumper)
            self.dumper = nil
        }
        if let file, file != OS.standardOutput, OS.fclose(file) != 0, failure == nil { failure = OS.errno }
        file = nil
        return failure
    }

    /// The packet bytes in the chosen layout, or nil for records it cannot carry (notes in H4).
    private func packet(_ r: CaptureRecord) -> (bytes: [UInt8], original: Int, flags: UInt32)? {
        if let air {
            guard r.kind == .linkLayer else { return nil }
            let header = air == 251 ? [] : (r.air ?? AirPacket()).pseudoHeader
            return (header + Array(r.payload), r.originalLength + header.count, 0)
        }
        if monitor {
            guard let opcode = MonitorRecord.opcode(r.kind, r.direction ?? .sent) else { return nil }
            // Plain notes keep their text as it was; other kinds (syslog, power, …) say what they were.
            let plain = ["Note", "System Note"].contains(r.noteCategory)
            let text = plain ? r.noteText : r.noteCategory + ": " + r.noteText
            let payload = r.kind == .note ? Array(text.utf8) + [0] : Array(r.payload)
            let index = r.kind == .note ? 0xffff : r.controllerIndex
            let original = r.kind == .note ? payload.count : r.originalLength
            return (payload, original, UInt32(index) << 16 | UInt32(opcode))
        }
        let type: UInt8
        switch r.kind {
        case .command: type = 1
        case .aclData: type = 2
        case .scoData: type = 3
        case .event: type = 4
        case .isoData: type = 5
        case .note, .unknown, .linkLayer: return nil
        }
        let received = r.direction == .received
        let flags: UInt32 = (received ? 1 : 0) | (r.kind == .command || r.kind == .event ? 2 : 0)
        return ([type] + Array(r.payload), r.originalLength + 1, flags)
    }

    public func write(_ r: CaptureRecord) {
        guard failure == nil else { return }
        guard let (bytes, original, flags) = packet(r) else {
            skipped += 1
            return
        }
        written += 1
        switch format {
        case .btsnoop:
            let (raw, overflow) = r.timestamp.microseconds.addingReportingOverflow(BTSnoopReader.epochDelta)
            if overflow { clampedTimes += 1 }
            put(
                be32(UInt32(clamping: original)) + be32(UInt32(clamping: bytes.count)) + be32(flags) + be32(0)
                    + be64(UInt64(bitPattern: overflow ? .max : raw)) + bytes)
        case .pcap, .pcapng:
            // 201 carries the direction in 4 big-endian bytes; 254 the index and opcode.
            let header = air != nil ? [] : monitor ? be32(flags) : be32(flags & 1)
            let data = header + bytes
            let full = original + header.count
            if format == .pcapng {
                let padded = data + Array(repeating: 0, count: (4 - data.count % 4) % 4)
                let length = UInt32(clamping: 32 + padded.count)
                // The Enhanced Packet Block's timestamp is unsigned (pcapng §4.3).
                if r.timestamp.microseconds < 0 { clampedTimes += 1 }
                let t = UInt64(max(r.timestamp.microseconds, 0))
                put(
                    le32(6) + le32(length) + le32(0) + le32(UInt32(t >> 32)) + le32(UInt32(t & 0xffff_ffff))
                        + le32(UInt32(clamping: data.count)) + le32(UInt32(clamping: full)) + padded + le32(length))
            } else if let dumper {
                var h = pcap_pkthdr()
                // A pcap record's seconds are 32 bits, which libpcap writes as its low 32 bits and
                // reads as signed (draft-ietf-opsawg-pcap §5 says unsigned): 1970 to 2038 reads back.
                var (sec, usec) = r.timestamp.microseconds.quotientAndRemainder(dividingBy: 1_000_000)
                if sec < 0 || (sec == 0 && usec < 0) || sec > Int64(Int32.max) {
                    clampedTimes += 1
                    (sec, usec) = sec < 0 || usec < 0 ? (0, 0) : (Int64(Int32.max), 999_999)
                }
                h.ts.tv_sec = Int(sec)
                h.ts.tv_usec = Int(usec)
                h.caplen = UInt32(clamping: data.count)
                h.len = UInt32(clamping: full)
                data.withUnsafeBufferPointer { p in
                    pcap_dump(UnsafeMutableRawPointer(dumper).assumingMemoryBound(to: UInt8.self), &h, p.baseAddress)
                }
                // libpcap says nothing of a failed write: its stream does.
                if let stream = pcap_dump_file(dumper), OS.ferror(stream) != 0 { failure = OS.errno }
            }
        }
    }

    private func put(_ bytes: [UInt8]) {
        guard let file, failure == nil else { return }
        let done = bytes.withUnsafeBytes { OS.fwrite($0, file) }
        if done < bytes.count { failure = OS.errno }
    }
}

private func be32(_ v: UInt32) -> [UInt8] {
    [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
}
private func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xffff_ffff)) }
private func le32(_ v: UInt32) -> [UInt8] {
    [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
}
private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
