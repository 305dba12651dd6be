import BTLensCore
import CPcap

/// pcap and pcapng through libpcap, for the Bluetooth HCI link types:
/// 187 H4 (no direction), 201 H4 with a 4-byte big-endian direction (bit 0 set = received),
/// 254 Linux monitor (4-byte big-endian adapter index and opcode); and the LE packets sniffers
/// hear over the air: 251, 256 (with a pseudo-header) and 272 (nRF Sniffer), as `linkLayer` records.
public final class PcapReader: CaptureReader {
    public private(set) var info: CaptureInfo
    public func addNote(_ note: String) { info.notes.append(note) }
    private let handle: OpaquePointer
    /// Memory handed to fmemopen for in-memory captures; freed with the reader.
    private let memory: UnsafeMutableRawBufferPointer?
    private var recordNumber = 0
    private var lastOffset: Int64
    /// For a live capture: when to stop waiting for packets.
    private let stop: StopFlag?
    /// For a followed stream (PipePump): whether it ended because following was stopped.
    var streamStopped: (() -> Bool)?
    private var finished = false
    /// Problems found with the record just returned, given next.
    private var pending: [CaptureItem] = []

    /// Over-the-air captures btlens does not read: BR/EDR baseband (Ubertooth).
    public static let airLinkTypes: [Int32: String] = [255: "LINKTYPE_BLUETOOTH_BREDR_BB"]

    static let linkTypeNames: [Int32: String] = [
        187: "Bluetooth HCI H4", 201: "Bluetooth HCI H4 with direction", 254: "Linux Bluetooth monitor",
        251: "Bluetooth LE link layer", 256: "Bluetooth LE link layer with pseudo-header",
        272: "Nordic BLE sniffer",
    ]

    init(file: UnsafeMutablePointer<FILE>, format: String, memory: UnsafeMutableRawBufferPointer? = nil)
        throws(CaptureOpenError)
    {
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        guard let p = pcap_fopen_offline(file, &errbuf) else {
            OS.fclose(file)
            memory?.deallocate()
            throw .unsupported(format: format, detail: "libpcap cannot read it: \(Self.text(errbuf))")
        }
        do {
            info = try Self.check(p, format: format)
        } catch {
            pcap_close(p)
            memory?.deallocate()
            throw error
        }
        handle = p
        self.memory = memory
        stop = nil
        lastOffset = pcap_file(p).map { Int64(OS.ftell($0)) } ?? -1
        info.headerLength = Int(lastOffset)
        info.size = memory.map { Int64($0.count) } ?? Self.size(of: file)
    }

    private static func size(of file: UnsafeMutablePointer<FILE>) -> Int64? {
        OS.regularFileSize(OS.fileno(file))
    }

    public var bytesRead: Int64 { lastOffset }

    /// Captures live from an interface (`bluetooth-monitor`, `bluetooth0`) until `stop` is set.
    public init(interface name: String, stop: StopFlag) throws(CaptureOpenError) {
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        guard let p = pcap_create(name, &errbuf) else { throw .cannotOpen(path: name, reason: Self.text(errbuf)) }
        pcap_set_snaplen(p, 65_535)
        pcap_set_immediate_mode(p, 1)
        // A read returns at least every 50 ms, so the stop flag is seen.
        pcap_set_timeout(p, 50)
        let status = pcap_activate(p)
        if status < 0 {
            let detail = String(cString: pcap_geterr(p))
            pcap_close(p)
            switch status {
            case PCAP_ERROR_NO_SUCH_DEVICE:
                throw .cannotOpen(path: name, reason: "no such interface (btlens interfaces lists the Bluetooth ones)")
            case PCAP_ERROR_PERM_DENIED:
                throw .cannotOpen(
                    path: name,
                    reason:
                        "permission denied: capturing needs root, or CAP_NET_RAW and CAP_NET_ADMIN on btlens (\(detail))"
                )
            default:
                let hint =
                    detail.contains("Address family not supported")
                    ? " (this kernel has no Bluetooth socket support)" : ""
                throw .cannotOpen(path: name, reason: detail + hint)
            }
        }
        do {
            info = try Self.check(p, format: "live \(name)")
        } catch {
            pcap_close(p)
            throw error
        }
        handle = p
        memory = nil
        self.stop = stop
        lastOffset = 0
    }

    private static func text(_ errbuf: [CChar]) -> String {
        String(decoding: errbuf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The capture's facts, or why its link type is not one btlens reads.
    private static func check(_ p: OpaquePointer, format: String) throws(CaptureOpenError) -> CaptureInfo {
        try info(linkType: pcap_datalink(p), format: format)
    }

    /// The same for a link type a file or an interface (`pcap_datalink`) says.
    static func info(linkType: Int32, format: String) throws(CaptureOpenError) -> CaptureInfo {
        if let air = airLinkTypes[linkType] {
            throw .unsupported(
                format: format,
                detail: "link type \(linkType) (\(air)): this is an over-the-air link-layer capture, not an HCI log")
        }
        guard let name = linkTypeNames[linkType] else {
            throw .unsupported(
                format: format,
                detail: "link type \(linkType) is not a Bluetooth link type btlens reads (187, 201, 254, 251, 256, 272)"
            )
        }
        return CaptureInfo(format: format, linkType: Int(linkType), linkTypeName: name)
    }

    deinit {
        pcap_close(handle)
        memory?.deallocate()
    }

    public func next() throws(CaptureOpenError) -> CaptureItem? {
        if !pending.isEmpty { return pending.removeFirst() }
        guard !finished else { return nil }
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let offset = lastOffset
        var status = pcap_next_ex(handle, &header, &data)
        // A live capture's read timed out with no packet: wait again, unless told to stop.
        while status == 0, let stop, !stop.isSet {
            stop.tick()
            status = pcap_next_ex(handle, &header, &data)
        }
        guard status == 1, let h = header?.pointee else {
            finished = true
            // A followed stream ended by a stop: libpcap's error is that it was left with part of a record.
            if let streamStopped, streamStopped() {
                return status == PCAP_ERROR
                    ? .problem(.stopped(inside: recordNumber + 1, offset: offset, arrived: nil)) : nil
            }
            guard status == PCAP_ERROR else { return nil }
            let message = String(cString: pcap_geterr(handle))
            return .problem(
                CaptureProblem(
                    diagnostic: Diagnostic(
                        CaptureDiagnostics.recordPastEnd, "record \(recordNumber + 1) at offset \(offset): \(message)"),
                    recordNumber: recordNumber + 1, fileOffset: offset))
        }
        recordNumber += 1
        if let f = pcap_file(handle) { lastOffset = Int64(OS.ftell(f)) }
        let count = Int(h.caplen)
        // The record header or pcapng block around the packet: what the file offset moved past it.
        let framing = Int(lastOffset - offset) - count
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        let micros = Self.microseconds(seconds: Int64(h.ts.tv_sec), micros: Int64(h.ts.tv_usec))
        var record = CaptureRecord(
            number: recordNumber, fileOffset: offset, timestamp: Timestamp(microseconds: micros),
            kind: .unknown, direction: nil, payload: bytes[...], originalLength: Int(h.len))
        record.headerLength = max(framing, 0)
        // libpcap passes a pcap record's microseconds (or nanoseconds / 1000) field on as it is.
        if h.ts.tv_usec >= 1_000_000 {
            pending.append(
                CaptureProblem.item(
                    CaptureDiagnostics.timeFraction, recordNumber, offset,
                    "record \(recordNumber) at offset \(offset): microseconds field \(h.ts.tv_usec), expected at most 999999",
                    [("microseconds", .int(Int(h.ts.tv_usec)))]))
        }
        return classify(&record)
    }

    /// A record's time in microseconds. A pcapng block's 64-bit timestamp (at any `if_tsresol`) can
    /// give libpcap seconds that overflow it: the time saturates, and the analyzer says it is outside
    /// any plausible date (`capture.time.absurd`).
    static func microseconds(seconds: Int64, micros: Int64) -> Int64 {
        seconds.saturatingMultiplying(by: 1_000_000).saturatingAdding(micros)
    }

    private func classify(_ r: inout CaptureRecord) -> CaptureItem {
        var reader = ByteReader(r.payload)
        let full = r.originalLength
        switch info.linkType {
        case 254:
            guard let index = try? reader.u16be(), let opcode = try? reader.u16be() else { return short(r, need: 4) }
            r.payload = reader.rest()
            r.originalLength = max(full - 4, 0)
            r.headerLength += 4
            MonitorRecord.classify(&r, index: index, opcode: opcode)
            return .record(r)
        case 201:
            guard let direction = try? reader.u32be() else { return short(r, need: 4) }
            r.payload = reader.rest()
            r.originalLength = max(full - 4, 0)
            r.headerLength += 4
            return H4.classify(&r, direction: direction & 1 == 1 ? .received : .sent).map(CaptureItem.problem)
                ?? .record(r)
        case 251, 256, 272:
            return linkLayer(&r, reader: &reader)
        default:
            return H4.classify(&r, direction: nil).map(CaptureItem.problem) ?? .record(r)
        }
    }

    /// An LE packet a sniffer heard: its header (256's 10 bytes, 272's 17) read into `air`.
    private func linkLayer(_ r: inout CaptureRecord, reader: inout ByteReader) -> CaptureItem {
        let before = reader.remaining
        do {
            switch info.linkType {
            case 256: r.air = try AirPacket.leWithPseudoHeader(&reader)
            case 272: r.air = try nordic(r, &reader)
            default: r.air = AirPacket()
            }
        } catch {
            return airShort(r, need: info.linkType == 256 ? 10 : NordicHeader.size)
        }
        let header = before - reader.remaining
        r.payload = reader.rest()
        r.originalLength = max(r.originalLength - header, 0)
        r.headerLength += header
        r.kind = .linkLayer
        return .record(r)
    }

    /// 272's header, and what its lengths and version say that the record contradicts (given after it).
    private func nordic(_ r: CaptureRecord, _ reader: inout ByteReader) throws(ShortRead) -> AirPacket {
        let h = try NordicHeader.read(&reader)
        var peek = reader
        for m in h.mismatches(recordLength: r.originalLength) {
            pending.append(
                CaptureProblem.item(
                    CaptureDiagnostics.airHeaderMismatch, r.number, r.fileOffset, "record \(r.number): \(m)"))
        }
        return h.air(data: h.isData(accessAddress: try? peek.u32le()))
    }

    private func short(_ r: CaptureRecord, need: Int) -> CaptureItem {
        .problem(
            CaptureProblem(
                diagnostic: Diagnostic(
                    CaptureDiagnostics.recordEmpty,
                    "record \(r.number) holds \(r.payload.count) bytes; its pseudo-header needs \(need)"),
                recordNumber: r.number, fileOffset: r.fileOffset, bytes: r.headerLength + r.payload.count))
    }

    private func airShort(_ r: CaptureRecord, need: Int) -> CaptureItem {
        .problem(
            CaptureProblem(
                diagnostic: Diagnostic(
                    CaptureDiagnostics.airHeaderShort,
                    "record \(r.number): LINKTYPE \(info.linkType) header needs \(need) bytes, found \(r.payload.count)",
                    fields: [("have", .int(r.payload.count))]),
                recordNumber: r.number, fileOffset: r.fileOffset, bytes: r.headerLength + r.payload.count))
    }
}

/// The H4 packet indicator: 01 command, 02 ACL, 03 SCO, 04 event, 05 ISO.
enum H4 {
    /// Strips the indicator and sets kind and direction (commands are sent, events received, whatever
    /// the header says); the problem when the record has no indicator.
    static func classify(_ r: inout CaptureRecord, direction: Direction?) -> CaptureProblem? {
        guard let type = r.payload.first else { return empty(r) }
        r.payload.removeFirst()
        r.originalLength = max(r.originalLength - 1, 0)
        return classify(&r, indicator: type, direction: direction)
    }

    /// The same for a record whose indicator was read apart from its payload, nil when it had none.
    static func classify(_ r: inout CaptureRecord, indicator: UInt8?, direction: Direction?) -> CaptureProblem? {
        guard let type = indicator else { return empty(r) }
        r.headerLength += 1
        r.hadIndicator = true
        r.direction = direction
        switch type {
        case 0x01:
            r.kind = .command
            r.direction = .sent
        case 0x02: r.kind = .aclData
        case 0x03: r.kind = .scoData
        case 0x04:
            r.kind = .event
            r.direction = .received
        case 0x05: r.kind = .isoData
        default:
            r.kind = .unknown
            r.noteCategory = "H4 packet type \(Hex.value(type, width: 2))"
        }
        return nil
    }

    private static func empty(_ r: CaptureRecord) -> CaptureProblem {
        CaptureProblem(
            diagnostic: Diagnostic(CaptureDiagnostics.recordEmpty, "record \(r.number) has no H4 packet type byte"),
            recordNumber: r.number, fileOffset: r.fileOffset, bytes: r.headerLength)
    }
}
