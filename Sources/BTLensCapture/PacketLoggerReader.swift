import BTLensCore

/// Apple PacketLogger (.pklg): no file header; records of length (u32, not counting itself),
/// seconds, microseconds (u32 each), type (u8), payload. Big-endian in BTstack and the iOS live
/// stream, little-endian in modern PacketLogger and iOS sysdiagnose files.
public struct PacketLoggerReader: CaptureReader {
    /// Records checked before a file is taken for a pklg (Wireshark checks 5).
    static let recordsToValidate = 5
    static let headerLength = 13
    /// A record longer than this is damage, not data (HCI packets and notes are far smaller).
    static let maxRecordLength = 1 << 20

    public enum Layout: String, Sendable {
        case bigEndian = "big-endian"
        case littleEndian = "little-endian"
    }

    static let typeNames: [UInt8: String] = [
        0x00: "HCI command", 0x01: "HCI event", 0x02: "ACL sent", 0x03: "ACL received", 0x08: "SCO sent",
        0x09: "SCO received", 0x0a: "LMP sent", 0x0b: "LMP received", 0x12: "ISO sent", 0x13: "ISO received",
        0xf7: "Syslog", 0xf8: "Kernel", 0xf9: "Kernel Debug", 0xfa: "Error", 0xfb: "Power", 0xfc: "Note",
        0xfd: PacketLoggerDevice.category, 0xfe: "New Controller",
    ]

    public private(set) var info: CaptureInfo
    public mutating func addNote(_ note: String) { info.notes.append(note) }
    public var bytesRead: Int64 { input.offset }
    /// The byte order; it changes when a file joined from two recorders changes it midway.
    public private(set) var layout: Layout
    private var input: ChunkedInput
    private var recordNumber = 0
    private var finished = false
    /// Problems with the record just returned, said on the next calls.
    private var pending: [CaptureItem] = []

    /// The byte order whose first records all look like pklg records, or nil. Reads only as far as
    /// those records go, so a live stream is recognised once its first records have arrived.
    static func detect(_ input: inout ChunkedInput) throws(CaptureOpenError) -> Layout? {
        for layout in [Layout.bigEndian, .littleEndian] where try plausible(&input, layout) { return layout }
        return nil
    }

    private static func plausible(_ input: inout ChunkedInput, _ layout: Layout) throws(CaptureOpenError) -> Bool {
        var offset = 0
        for checked in 0..<recordsToValidate {
            // The input ends: plausible if whole records came before and only a partial header is left.
            guard try input.ensure(offset + headerLength) else {
                return checked > 0 && input.available - offset < headerLength
            }
            var r = ByteReader(input.peek(offset + headerLength).dropFirst(offset))
            guard let (length, micros, type) = try? header(&r, layout) else { return false }
            guard length >= 9, length < 65_536 || type == 0xfc, micros < 1_000_000, typeNames[type] != nil else {
                // Records in this order, then one in the other: two recordings joined (next() reads on).
                var again = ByteReader(input.peek(offset + headerLength).dropFirst(offset))
                let other: Layout = layout == .bigEndian ? .littleEndian : .bigEndian
                guard checked > 0, let (l, m, t) = try? header(&again, other) else { return false }
                return l >= 9 && l < 65_536 && m < 1_000_000 && typeNames[t] != nil
            }
            // A record the input ends inside still counts when records came before it; one larger
            // than 1 MiB is not read ahead for (a hostile length must not fill memory).
            let end = offset + 4 + Int(length)
            guard Int(length) <= 1 << 20, try input.ensure(end) else { return checked > 0 }
            offset = end
        }
        return true
    }

    private static func header(_ r: inout ByteReader, _ layout: Layout) throws(ShortRead) -> (UInt32, UInt32, UInt8) {
        let big = layout == .bigEndian
        let length = big ? try r.u32be() : try r.u32le()
        _ = big ? try r.u32be() : try r.u32le()
        let micros = big ? try r.u32be() : try r.u32le()
        return (length, micros, try r.u8())
    }

    init(_ input: ChunkedInput, layout: Layout) {
        self.input = input
        self.layout = layout
        info = CaptureInfo(format: "pklg", linkType: 0, linkTypeName: "Apple PacketLogger (\(layout.rawValue))")
        info.size = input.size
    }

    public mutating func next() throws(CaptureOpenError) -> CaptureItem? {
        if !pending.isEmpty { return pending.removeFirst() }
        guard !finished else { return nil }
        let offset = input.offset
        let number = recordNumber + 1
        guard try input.ensure(Self.headerLength) else {
            finished = true
            guard input.available > 0 else { return nil }
            return CaptureProblem.item(
                CaptureDiagnostics.headerCut, number, offset,
                "record \(number) at offset \(offset): the file ends after \(input.available) of the 13 header bytes")
        }
        var (length, seconds, micros, type) = fields(layout)
        var flipped = false
        if !(9...Self.maxRecordLength).contains(length) {
            // Two files joined: the rest may be in the other byte order.
            let other: Layout = layout == .bigEndian ? .littleEndian : .bigEndian
            let f = fields(other)
            if (9...Self.maxRecordLength).contains(f.length), f.micros < 1_000_000, Self.typeNames[f.type] != nil {
                (length, seconds, micros, type) = f
                layout = other
                flipped = true
            }
        }
        guard length >= 9, length <= Self.maxRecordLength else {
            finished = true
            return CaptureProblem.item(
                CaptureDiagnostics.lengthAbsurd, number, offset,
                "record \(number) at offset \(offset) claims length \(length); a PacketLogger record is 9 to \(Self.maxRecordLength) bytes",
                [("claimed", .int(length))])
        }
        _ = input.take(Self.headerLength)
        recordNumber = number
        let wanted = length - 9
        let complete = try input.ensure(wanted)
        let payload = input.take(wanted)
        var record = CaptureRecord(
            number: number, fileOffset: offset,
            timestamp: Timestamp(microseconds: seconds * 1_000_000 + micros),
            kind: .unknown, direction: nil, payload: payload, originalLength: wanted)
        record.headerLength = Self.headerLength
        classify(&record, type: type)
        if flipped {
            pending.append(
                .problem(
                    CaptureProblem(
                        diagnostic: Diagnostic(
                            CaptureDiagnostics.byteOrderChanged,
                            "record \(number) at offset \(offset) is \(layout.rawValue), the records before it were not: read on in \(layout.rawValue)"
                        ),
                        recordNumber: number, fileOffset: offset)))
        }
        if micros >= 1_000_000 {
            pending.append(
                CaptureProblem.item(
                    CaptureDiagnostics.timeFraction, number, offset,
                    "record \(number) at offset \(offset): microseconds field \(micros), expected at most 999999",
                    [("microseconds", .int(micros))]))
        }
        if !complete {
            finished = true
            pending.append(
                .problem(
                    CaptureProblem(
                        diagnostic: Diagnostic(
                            CaptureDiagnostics.recordPastEnd,
                            "record \(number) at offset \(offset) claims \(wanted) bytes but the file ends after \(payload.count)",
                            fields: [("claimed", .int(wanted)), ("have", .int(payload.count))]),
                        recordNumber: number, fileOffset: offset)))
        }
        return .record(record)
    }

    /// The header's length, seconds, microseconds and type in a byte order (13 bytes are there).
    private func fields(_ layout: Layout) -> (length: Int, seconds: Int64, micros: Int64, type: UInt8) {
        var h = ByteReader(input.peek(Self.headerLength))
        let big = layout == .bigEndian
        let length = Int((big ? try? h.u32be() : try? h.u32le()) ?? 0)
        let seconds = Int64((big ? try? h.u32be() : try? h.u32le()) ?? 0)
        let micros = Int64((big ? try? h.u32be() : try? h.u32le()) ?? 0)
        return (length, seconds, micros, (try? h.u8()) ?? 0)
    }

    /// The HCI packet a record type carries, and its direction (a switch: this runs once a record).
    static func packet(_ type: UInt8) -> (RecordKind, Direction)? {
        switch type {
        case 0x00: return (.command, .sent)
        case 0x01: return (.event, .received)
        case 0x02: return (.aclData, .sent)
        case 0x03: return (.aclData, .received)
        case 0x08: return (.scoData, .sent)
        case 0x09: return (.scoData, .received)
        case 0x12: return (.isoData, .sent)
        case 0x13: return (.isoData, .received)
        default: return nil
        }
    }

    private func classify(_ r: inout CaptureRecord, type: UInt8) {
        if let (kind, direction) = Self.packet(type) {
            r.kind = kind
            r.direction = direction
            return
        }
        guard let name = Self.typeNames[type], type >= 0xf7 else {
            r.kind = .unknown
            r.noteCategory = Self.typeNames[type] ?? "PacketLogger type \(Hex.value(type, width: 2))"
            return
        }
        r.kind = .note
        r.noteCategory = name
        r.noteText = type == 0xf7 ? Self.syslog(r.payload) : Self.text(r.payload)
    }

    /// Syslog: pid (u32 LE), message type (u8), then NUL-terminated process, sender, subsystem, category, message.
    static func syslog(_ payload: ArraySlice<UInt8>) -> String {
        var r = ByteReader(payload)
        guard (try? r.skip(5)) != nil else { return text(payload) }
        let parts = r.rest().split(separator: 0, omittingEmptySubsequences: false).map { text($0) }
        guard parts.count >= 5 else { return parts.joined(separator: " ") }
        return "\(parts[0]) [\(parts[2])/\(parts[3])]: \(parts[4])"
    }

    /// Text that may or may not end in NUL; bytes that are not text are counted, not printed.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        let body = bytes[bytes.startIndex..<end]
        let controls = body.contains { $0 < 0x20 && $0 != 0x0a && $0 != 0x09 && $0 != 0x0d }
        guard !controls, var s = String(validating: body, as: UTF8.self) else {
            return "\(Plural.of(bytes.count, "byte")): \(Hex.string(bytes.prefix(32)))\(bytes.count > 32 ? "…" : "")"
        }
        while s.last == "\n" || s.last == "\r" { s.removeLast() }
        return s
    }

}
