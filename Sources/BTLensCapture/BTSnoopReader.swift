import BTLensCore

/// btsnoop version 1 (RFC 1761 snoop, as written by Android, BlueZ btmon and Frontline).
///
/// Header: "btsnoop\0", version (u32 BE, must be 1), datalink (u32 BE). Records: original length,
/// included length, flags, cumulative drops (u32 BE each), timestamp (i64 BE µs since year 0).
public struct BTSnoopReader: CaptureReader {
    public enum Datalink: Int, Sendable {
        /// Un-encapsulated HCI: no H4 byte; command/event/data from the flags.
        case h1 = 1001
        /// H4/UART: first byte is the packet indicator; flags give only the direction.
        case h4 = 1002
        /// BlueZ monitor: flags = controller index << 16 | monitor opcode.
        case monitor = 2001

        public var name: String {
            switch self {
            case .h1: return "HCI un-encapsulated (H1)"
            case .h4: return "HCI UART (H4)"
            case .monitor: return "Linux Bluetooth monitor"
            }
        }
    }

    /// µs between the btsnoop epoch and the Unix epoch (Wireshark, Android and BlueZ agree).
    public static let epochDelta: Int64 = 0x00DC_DDB3_0F2F_8000
    /// Wireshark's limit on a record (WTAP_MAX_PACKET_SIZE_STANDARD); a larger length is absurd.
    public static let maxRecordLength = 262_144
    static let recordHeaderLength = 24

    public private(set) var info: CaptureInfo
    public mutating func addNote(_ note: String) { info.notes.append(note) }
    public var bytesRead: Int64 { input.offset }
    public let datalink: Datalink
    /// Datalink 1001 whose records really hold H4 bytes.
    public let h4Layout: Bool
    private var input: ChunkedInput
    private var recordNumber = 0
    private var finished = false
    private var pending: [CaptureItem] = []
    /// Said once the first record is out, so it carries that record's time.
    private var afterFirstRecord: CaptureItem?

    init(_ input: ChunkedInput) throws(CaptureOpenError) {
        var input = input
        guard try input.ensure(16) else {
            throw .headerTooShort(format: "btsnoop", have: input.available, need: 16)
        }
        var header = ByteReader(input.take(16))
        _ = try? header.skip(8)
        let version = (try? header.u32be()) ?? 0
        let code = Int((try? header.u32be()) ?? 0)
        guard version == 1 else {
            throw .unsupported(format: "btsnoop", detail: "version \(version) at offset 8; only version 1 exists")
        }
        guard let datalink = Datalink(rawValue: code) else {
            let known = [1003: "BCSP", 1004: "H5 (3-wire)", 2002: "BlueZ simulator"][code].map { " (\($0))" } ?? ""
            throw .unsupported(
                format: "btsnoop", detail: "datalink \(code)\(known) at offset 12 is not an HCI log btlens reads")
        }
        self.datalink = datalink
        self.info = CaptureInfo(format: "btsnoop", linkType: code, linkTypeName: datalink.name)
        info.headerLength = 16
        info.size = input.size
        self.h4Layout = datalink == .h1 ? try BTSnoopReader.firstRecordIsH4(&input) : datalink == .h4
        self.input = input
        if h4Layout && datalink == .h1 {
            let d = Diagnostic(
                CaptureDiagnostics.h4InH1File,
                "datalink 1001 says no H4 byte, but the first record starts with one; reading the file as H4")
            afterFirstRecord = .problem(CaptureProblem(diagnostic: d, recordNumber: 1, fileOffset: 16))
            info.notes.append("records hold H4 bytes despite datalink 1001")
        }
    }

    /// Some writers label H4 records as 1001 (btsnoop-parser notes this); the lengths tell which.
    private static func firstRecordIsH4(_ input: inout ChunkedInput) throws(CaptureOpenError) -> Bool {
        guard try input.ensure(recordHeaderLength + 5) else { return false }
        var r = ByteReader(input.peek(recordHeaderLength + 5))
        guard (try? r.skip(4)) != nil, let included = try? r.u32be(), (try? r.skip(16)) != nil,
            let b0 = try? r.u8(), let b1 = try? r.u8(), let b2 = try? r.u8(), let b3 = try? r.u8(),
            let b4 = try? r.u8()
        else { return false }
        let n = Int(included)
        func h4Fits() -> Bool {
            switch b0 {
            case 1: return n == 4 + Int(b3)
            case 2, 5: return n == 5 + (Int(b3) | Int(b4) << 8)
            case 3: return n == 4 + Int(b3)
            case 4: return n == 3 + Int(b2)
            default: return false
            }
        }
        func h1Fits() -> Bool {
            n == 3 + Int(b2) || n == 2 + Int(b1) || n == 4 + (Int(b2) | Int(b3) << 8)
        }
        return h4Fits() && !h1Fits()
    }

    public mutating func next() throws(CaptureOpenError) -> CaptureItem? {
        if !pending.isEmpty { return pending.removeFirst() }
        guard !finished else { return nil }
        let offset = input.offset
        let number = recordNumber + 1
        guard try input.ensure(Self.recordHeaderLength) else {
            finished = true
            guard input.available > 0 else { return nil }
            let have = input.available
            return CaptureProblem.item(
                CaptureDiagnostics.headerCut, number, offset,
                "record \(number) at offset \(offset): the file ends after \(have) of the 24 header bytes")
        }
        // The header is known to be available, so these reads cannot fail.
        let original = Int(input.peekBigEndian(UInt32.self, at: 0) ?? 0)
        let included = Int(input.peekBigEndian(UInt32.self, at: 4) ?? 0)
        let flags = input.peekBigEndian(UInt32.self, at: 8) ?? 0
        let raw = Int64(bitPattern: input.peekBigEndian(UInt64.self, at: 16) ?? 0)
        input.skip(Self.recordHeaderLength)
        guard included <= Self.maxRecordLength else {
            finished = true
            var p = CaptureProblem.item(
                CaptureDiagnostics.lengthAbsurd, number, offset,
                "record \(number) at offset \(offset) claims \(included) bytes; no record is longer than \(Self.maxRecordLength)",
                [("claimed", .int(included)), ("limit", .int(Self.maxRecordLength))])
            // Its header was read; the rest of the file is not.
            if case .problem(var d) = p {
                d.bytes = Self.recordHeaderLength
                p = .problem(d)
            }
            return p
        }
        recordNumber = number
        let complete = try input.ensure(included)
        // An H4 indicator is read apart: slicing it off the payload would make a second slice.
        let indicator = h4Layout && included > 0 ? input.takeByte() : nil
        let bytes = input.take(indicator == nil ? included : included - 1)
        var originalLength = original
        if !complete {
            finished = true
            let have = bytes.count + (indicator == nil ? 0 : 1)
            let d = Diagnostic(
                CaptureDiagnostics.recordPastEnd,
                "record \(number) at offset \(offset) claims \(included) bytes but the file ends after \(have)",
                fields: [("claimed", .int(included)), ("have", .int(have))])
            pending.append(.problem(CaptureProblem(diagnostic: d, recordNumber: number, fileOffset: offset)))
            originalLength = max(original, included)
        } else if included > original {
            let d = Diagnostic(
                CaptureDiagnostics.lengthInconsistent,
                "record \(number) at offset \(offset): included length \(included) exceeds original length \(original)",
                fields: [("included", .int(included)), ("original", .int(original))])
            pending.append(.problem(CaptureProblem(diagnostic: d, recordNumber: number, fileOffset: offset)))
            originalLength = included
        }
        // Saturates like pcap's time: the analyzer says it is absurd (capture.time.absurd).
        let time = Timestamp(microseconds: raw.saturatingSubtracting(Self.epochDelta))
        let item = makeRecord(
            number: number, offset: offset, time: time, flags: flags, indicator: indicator,
            bytes: consume bytes, originalLength: originalLength)
        if let note = afterFirstRecord {
            pending.insert(note, at: 0)
            afterFirstRecord = nil
        }
        if pending.isEmpty { return item }
        pending.insert(item, at: 0)
        return pending.removeFirst()
    }

    private func makeRecord(
        number: Int, offset: Int64, time: Timestamp, flags: UInt32, indicator: UInt8?,
        bytes: consuming ArraySlice<UInt8>, originalLength: Int
    ) -> CaptureItem {
        var record = CaptureRecord(
            number: number, fileOffset: offset, timestamp: time, kind: .unknown,
            direction: flags & 1 == 0 ? .sent : .received, payload: bytes,
            originalLength: originalLength)
        record.headerLength = Self.recordHeaderLength
        switch datalink {
        case .monitor:
            MonitorRecord.classify(
                &record, index: UInt16(truncatingIfNeeded: flags >> 16),
                opcode: UInt16(truncatingIfNeeded: flags))
        case .h1 where !h4Layout:
            // Flags bit 1 marks command/event; data records cannot say ACL from SCO, ACL is what they are in practice.
            record.kind = flags & 2 == 0 ? .aclData : (flags & 1 == 0 ? .command : .event)
        case .h1, .h4:
            record.originalLength = max(originalLength - 1, 0)
            if let problem = H4.classify(&record, indicator: indicator, direction: record.direction) {
                return .problem(problem)
            }
        }
        return .record(record)
    }
}
