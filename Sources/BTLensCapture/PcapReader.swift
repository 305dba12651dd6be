import BTLensCore
import CPcap
#if canImport(Glibc)
import Glibc
#endif

/// pcap and pcapng through libpcap, for the Bluetooth HCI link types:
/// 187 H4 (no direction), 201 H4 with a 4-byte big-endian direction (bit 0 set = received),
/// 254 Linux monitor (4-byte big-endian adapter index and opcode).
public final class PcapReader: CaptureReader {
    public private(set) var info: CaptureInfo
    public func addNote(_ note: String) { info.notes.append(note) }
    private let handle: OpaquePointer
    /// Memory handed to fmemopen for in-memory captures; freed with the reader.
    private let memory: UnsafeMutableRawBufferPointer?
    private var recordNumber = 0
    private var lastOffset: Int64
    private var finished = false

    /// Over-the-air link-layer captures: they hold no HCI traffic.
    public static let airLinkTypes: [Int32: String] = [
        251: "LINKTYPE_BLUETOOTH_LE_LL", 255: "LINKTYPE_BLUETOOTH_BREDR_BB", 256: "LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR",
        272: "LINKTYPE_NORDIC_BLE",
    ]

    static let linkTypeNames: [Int32: String] = [
        187: "Bluetooth HCI H4", 201: "Bluetooth HCI H4 with direction", 254: "Linux Bluetooth monitor",
    ]

    init(file: UnsafeMutablePointer<FILE>, format: String, memory: UnsafeMutableRawBufferPointer? = nil) throws(CaptureOpenError) {
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        guard let p = pcap_fopen_offline(file, &errbuf) else {
            fclose(file)
            memory?.deallocate()
            let message = String(decoding: errbuf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .unsupported(format: format, detail: "libpcap cannot read it: \(message)")
        }
        let linkType = pcap_datalink(p)
        if let air = Self.airLinkTypes[linkType] {
            pcap_close(p)
            memory?.deallocate()
            throw .unsupported(format: format, detail: "link type \(linkType) (\(air)): this is an over-the-air link-layer capture, not an HCI log")
        }
        guard let name = Self.linkTypeNames[linkType] else {
            pcap_close(p)
            memory?.deallocate()
            throw .unsupported(format: format, detail: "link type \(linkType) is not a Bluetooth HCI link type (187, 201, 254)")
        }
        handle = p
        self.memory = memory
        lastOffset = Int64(ftell(pcap_file(p)))
        info = CaptureInfo(format: format, linkType: Int(linkType), linkTypeName: name)
    }

    deinit {
        pcap_close(handle)
        memory?.deallocate()
    }

    public func next() throws(CaptureOpenError) -> CaptureItem? {
        guard !finished else { return nil }
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let offset = lastOffset
        let status = pcap_next_ex(handle, &header, &data)
        guard status == 1, let h = header?.pointee else {
            finished = true
            guard status == PCAP_ERROR else { return nil }
            let message = String(cString: pcap_geterr(handle))
            return .problem(CaptureProblem(
                diagnostic: Diagnostic(CaptureDiagnostics.recordPastEnd, "record \(recordNumber + 1) after offset \(offset): \(message)"),
                recordNumber: recordNumber + 1, fileOffset: offset))
        }
        recordNumber += 1
        if let f = pcap_file(handle) { lastOffset = Int64(ftell(f)) }
        let count = Int(h.caplen)
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        let micros = Int64(h.ts.tv_sec) * 1_000_000 + Int64(h.ts.tv_usec)
        var record = CaptureRecord(number: recordNumber, fileOffset: offset, timestamp: Timestamp(microseconds: micros),
                                   kind: .unknown, direction: nil, payload: bytes[...], originalLength: Int(h.len))
        return classify(&record)
    }

    private func classify(_ r: inout CaptureRecord) -> CaptureItem {
        var reader = ByteReader(r.payload)
        let full = r.originalLength
        switch info.linkType {
        case 254:
            guard let index = try? reader.u16be(), let opcode = try? reader.u16be() else { return short(r, need: 4) }
            r.payload = reader.rest()
            r.originalLength = max(full - 4, 0)
            r.headerLength = 4
            return MonitorRecord.classify(&r, index: index, opcode: opcode)
        case 201:
            guard let direction = try? reader.u32be() else { return short(r, need: 4) }
            r.payload = reader.rest()
            r.originalLength = max(full - 4, 0)
            r.headerLength = 4
            return H4.classify(&r, direction: direction & 1 == 1 ? .received : .sent)
        default:
            return H4.classify(&r, direction: nil)
        }
    }

    private func short(_ r: CaptureRecord, need: Int) -> CaptureItem {
        .problem(CaptureProblem(diagnostic: Diagnostic(CaptureDiagnostics.recordEmpty,
                                                       "record \(r.number) holds \(r.payload.count) bytes; its pseudo-header needs \(need)"),
                                recordNumber: r.number, fileOffset: r.fileOffset))
    }
}

/// The H4 packet indicator: 01 command, 02 ACL, 03 SCO, 04 event, 05 ISO.
enum H4 {
    /// Strips the indicator and sets kind and direction (commands are sent, events received, whatever the header says).
    static func classify(_ r: inout CaptureRecord, direction: Direction?) -> CaptureItem {
        guard let type = r.payload.first else {
            return .problem(CaptureProblem(diagnostic: Diagnostic(CaptureDiagnostics.recordEmpty,
                                                                  "record \(r.number) has no H4 packet type byte"),
                                           recordNumber: r.number, fileOffset: r.fileOffset))
        }
        r.payload = r.payload.dropFirst()
        r.originalLength = max(r.originalLength - 1, 0)
        r.headerLength += 1
        r.direction = direction
        switch type {
        case 0x01: r.kind = .command; r.direction = .sent
        case 0x02: r.kind = .aclData
        case 0x03: r.kind = .scoData
        case 0x04: r.kind = .event; r.direction = .received
        case 0x05: r.kind = .isoData
        default:
            r.kind = .unknown
            r.noteCategory = "H4 packet type \(Hex.value(type, width: 2))"
        }
        return .record(r)
    }
}
