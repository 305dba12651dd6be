import BTLensCore

/// A streaming reader of one capture: records come out one at a time, in file order.
public protocol CaptureReader {
    var info: CaptureInfo { get }
    /// The next record or file problem; nil at the end of the capture.
    mutating func next() throws(CaptureOpenError) -> CaptureItem?
    /// Adds a line of capture information (where the records came from, quirks found).
    mutating func addNote(_ note: String)
    /// Bytes of the capture consumed so far: the offset of the next byte to read (byte accounting).
    var bytesRead: Int64 { get }
}

/// What a reader knows about the file as a whole.
public struct CaptureInfo: Sendable, Equatable {
    /// Short name of the format, e.g. `btsnoop`.
    public var format: String
    /// The format's link type: btsnoop datalink (1001, 1002, 2001) or pcap LINKTYPE.
    public var linkType: Int
    /// Human-readable description of the link type, e.g. `H4 (UART)`.
    public var linkTypeName: String
    public var notes: [String] = []
    /// Bytes of the file header (read once, before the first record).
    public var headerLength = 0
    /// The size of what the records are read from (the file; an Android summary's decompressed
    /// log); nil for a stream.
    public var size: Int64?

    public init(format: String, linkType: Int, linkTypeName: String) {
        self.format = format
        self.linkType = linkType
        self.linkTypeName = linkTypeName
    }
}

/// Recognises a capture by its first bytes, never by its name.
public enum CaptureFormat {
    public static let btsnoopMagic: [UInt8] = Array("btsnoop\0".utf8)

    /// What is read, for `btlens formats` and docs/usage.md.
    public static let supported: [(name: String, detail: String)] = [
        ("btsnoop 1001", "HCI un-encapsulated (H1); files labelled 1001 that hold H4 bytes are recognised"),
        ("btsnoop 1002", "HCI UART (H4): Android btsnoop_hci.log, btsnoop_net"),
        ("btsnoop 2001", "Linux Bluetooth monitor (btmon -w): index, notes, user logging"),
        ("pklg (big-endian)", "Apple PacketLogger: BTstack, idevicebtlogger live stream"),
        ("pklg (little-endian)", "Apple PacketLogger: PacketLogger.app, iOS sysdiagnose; notes, syslog, power, config"),
        ("pcap / pcapng 187", "Bluetooth HCI H4, no direction (through libpcap)"),
        ("pcap / pcapng 201", "Bluetooth HCI H4 with direction (through libpcap)"),
        ("pcap / pcapng 254", "Linux Bluetooth monitor (through libpcap)"),
        ("pcap / pcapng 251", "Bluetooth LE link layer, as a sniffer heard it (through libpcap)"),
        ("pcap / pcapng 256", "Bluetooth LE link layer with RF channel, signal and CRC flags (through libpcap)"),
        ("pcap / pcapng 272", "Nordic nRF Sniffer for Bluetooth LE (through libpcap)"),
        ("pcap / pcapng 255", "BR/EDR baseband (Ubertooth): refused, not read (exit 1)"),
        ("btsnooz v1, v2", "Android bugreport text or dumpsys bluetooth_manager: BTSNOOP_LOG_SUMMARY"),
    ]

    /// Opens whatever capture `source` holds. pcap and pcapng go through libpcap: from a path it
    /// reads the file itself; from any other source the bytes are handed to it in memory, or, with
    /// `streaming` (a live stream), through a pipe as they arrive.
    public static func open(_ source: any ByteSource, path: String? = nil, streaming: Bool = false)
        throws(CaptureOpenError) -> any CaptureReader
    {
        var input = ChunkedInput(source)
        _ = try input.ensure(16)
        let head = Array(input.peek(16))
        if head.starts(with: btsnoopMagic) { return try BTSnoopReader(input) }
        let magic =
            head.count >= 4 ? UInt32(head[0]) << 24 | UInt32(head[1]) << 16 | UInt32(head[2]) << 8 | UInt32(head[3]) : 0
        switch magic {
        case 0xa1b2_c3d4, 0xd4c3_b2a1, 0xa1b2_3c4d, 0x4d3c_b2a1:
            return streaming
                ? try PipePump.open(input, format: "pcap")
                : try openWithLibpcap(&input, source, path: path, format: "pcap")
        case 0x0a0d_0d0a:
            return streaming
                ? try PipePump.open(input, format: "pcapng")
                : try openWithLibpcap(&input, source, path: path, format: "pcapng")
        case 0x504b_0304, 0x504b_0506:
            // Its members are found through the central directory at the end: only a file has one.
            throw .unsupported(
                format: "zip",
                detail:
                    "a bugreport .zip is read whole, from a file: it cannot be followed, nor read from standard input or a pipe (save it to a file and give its path to timeline, stats, report or convert)"
            )
        default:
            if let layout = try PacketLoggerReader.detect(&input) { return PacketLoggerReader(input, layout: layout) }
            if BTSnoozReader.looksLikeText(head) {
                // A bugreport's summary is searched for to its end, which a followed file never reaches.
                if streaming {
                    throw .unsupported(
                        format: "text",
                        detail:
                            "follow reads btsnoop, PacketLogger, pcap and pcapng as they grow; a bugreport's btsnooz summary is read whole (run timeline on it)"
                    )
                }
                if let reader = try BTSnoozReader.open(&input) { return reader }
                throw .unsupported(
                    format: "text",
                    detail:
                        "no BEGIN:BTSNOOP_LOG_SUMMARY block (an Android bugreport or dumpsys bluetooth_manager output holds one)"
                )
            }
            throw .notACapture(firstBytes: Hex.spaced(head.prefix(8)))
        }
    }

    private static func openWithLibpcap(
        _ input: inout ChunkedInput, _ source: any ByteSource, path: String?, format: String
    ) throws(CaptureOpenError) -> any CaptureReader {
        if let path {
            guard let file = OS.fopen(path, "rb") else {
                throw .cannotOpen(path: path, reason: OS.openFailure(path, OS.errno))
            }
            return try PcapReader(file: file, format: format)
        }
        // A member extracted from a zip: a file without a name.
        if let file = (source as? FileSource)?.rewoundStream() { return try PcapReader(file: file, format: format) }
        var bytes: [UInt8] = []
        while try input.ensure(input.available + 1) {}
        bytes = Array(input.take(input.available))
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
        memory.copyBytes(from: bytes)
        guard let file = OS.fmemopen(memory.baseAddress, bytes.count, "rb") else {
            memory.deallocate()
            throw .unsupported(format: format, detail: "cannot hand the bytes to libpcap")
        }
        return try PcapReader(file: file, format: format, memory: memory)
    }

    /// Opens a capture file (a pipe or FIFO as a stream); a bugreport .zip opens its best member, or
    /// `member`, inflated to at most `archiveLimit` bytes.
    public static func open(path: String, member: String? = nil, archiveLimit: Int64 = 256 << 20)
        throws(CaptureOpenError) -> any CaptureReader
    {
        let source = try FileSource(path: path)
        // A pipe or FIFO (`<(cat cap)`, `/dev/stdin`) gives its bytes once: read as standard input is.
        guard source.size != nil else {
            guard member == nil else {
                throw .unsupported(
                    format: "capture", detail: "--member applies to a bugreport .zip file, not to a pipe")
            }
            return try open(source, streaming: true)
        }
        var probe = ChunkedInput(source)
        _ = try probe.ensure(4)
        guard BugreportArchive.isZipHead(probe.peek(4)) else {
            guard member == nil else {
                throw .unsupported(format: "capture", detail: "--member applies to a bugreport .zip")
            }
            return try open(FileSource(path: path), path: path)
        }
        let archive = try BugreportArchive(path: path, limit: archiveLimit)
        let (extracted, name, damage) = try archive.extract(member: member, limit: archiveLimit)
        let damaged = [archive.damage, damage].compactMap { $0 }.joined(separator: "; ")
        var reader: any CaptureReader
        do { reader = try open(extracted) } catch {
            // Which member was read is said: the best candidate, or the one --member named.
            guard !damaged.isEmpty else { throw .unsupported(format: "zip", detail: "member \(name): \(error)") }
            // What is wrong with the member comes first: the bytes it gave may be none.
            let gave = extracted.size == 0 ? "nothing inflates from it" : "what inflates from it: \(error)"
            throw .unsupported(format: "zip", detail: "member \(name) is damaged: \(damaged); \(gave)")
        }
        let others = archive.candidates.filter { $0 != name }
        // Of members by the same name, the first in the central directory is read (`ZipMember.locate`).
        let copies = archive.members.filter { $0 == name }.count
        reader.addNote(
            "bugreport member \(name)" + (copies > 1 ? " (the first of \(copies) members by that name)" : "")
                + (damaged.isEmpty ? "" : " (damaged: \(damaged); read as far as it goes)")
                + (others.isEmpty ? "" : "; also inside: \(BugreportArchive.list(others))"))
        return damaged.isEmpty ? reader : ArchiveMemberReader(reader, member: name, damage: damaged)
    }
}
