import BTLensCore
import Foundation

/// The btsnooz summary Android puts in bugreports and `dumpsys bluetooth_manager`:
/// `--- BEGIN:BTSNOOP_LOG_SUMMARY (…) ---`, base64 lines, `--- END:BTSNOOP_LOG_SUMMARY (…) ---`.
/// Decoded: version (u8, 1 or 2) and the last timestamp (u64 LE, µs), then a zlib stream of records:
/// v1 `length u16, delta u32, type u8`; v2 `length u16, original length u16, delta u32, type u8`;
/// little-endian; `length` counts the type byte. Times are found by walking the deltas back from the last.
public struct BTSnoozReader: CaptureReader {
    static let beginMarker = Array("BEGIN:BTSNOOP_LOG_SUMMARY".utf8)
    static let endMarker = Array("END:BTSNOOP_LOG_SUMMARY".utf8)
    /// Android keeps 128 KiB of summary (BTSNOOP_MEM_BUFFER_SIZE), 1 MiB on some devices; anything
    /// far larger is not a summary, and these bounds keep the whole of one in memory small.
    static let encodedLimit = 16 << 20
    static let decodedLimit = 8 << 20

    public private(set) var info: CaptureInfo
    public mutating func addNote(_ note: String) { info.notes.append(note) }
    public var bytesRead: Int64 { Int64(offset) }
    private let blob: [UInt8]
    private let version: UInt8
    /// The last timestamp, and the sum of every record's delta: a record's time is the last one
    /// minus the deltas of the records after it, found from the deltas before it and this sum.
    private let last: Int64
    private var deltas: Int64 = 0
    private var deltasSoFar: Int64 = 0
    private var offset: Int
    private var recordNumber = 0
    private var problem: CaptureProblem?

    /// True when the input looks like text: only then is it searched for a summary.
    static func looksLikeText(_ head: [UInt8]) -> Bool {
        !head.isEmpty
            && head.allSatisfy { $0 == 0x09 || $0 == 0x0a || $0 == 0x0d || ($0 >= 0x20 && $0 < 0x7f) || $0 >= 0x80 }
    }

    /// Reads up to and through the summary block; nil when the text holds none.
    static func open(_ input: inout ChunkedInput) throws(CaptureOpenError) -> BTSnoozReader? {
        guard var encoded = try block(&input) else { return nil }
        guard let bytes = decodeBase64(&encoded), bytes.count >= 9 else {
            throw .unsupported(format: "btsnooz", detail: "the BTSNOOP_LOG_SUMMARY block is not valid base64")
        }
        var r = ByteReader(bytes)
        let version = (try? r.u8()) ?? 0
        let last = Int64(bitPattern: (try? r.u64le()) ?? 0)
        guard version == 1 || version == 2 else {
            throw .unsupported(format: "btsnooz", detail: "summary version \(version); versions 1 and 2 exist")
        }
        let blob: [UInt8]
        do throws(Inflate.Failure) {
            blob = try Inflate.zlib(r.rest(), limit: decodedLimit)
        } catch {
            switch error {
            case .tooLarge(let limit):
                throw .unsupported(
                    format: "btsnooz",
                    detail: "the summary inflates to more than \(limit) bytes; Android keeps at most 1 MiB")
            case .corrupt(let why):
                throw .unsupported(format: "btsnooz", detail: "the summary's zlib stream is damaged: \(why)")
            }
        }
        return BTSnoozReader(blob: blob, version: version, last: last)
    }

    /// The bytes of base64 text, decoded from the text's own storage, which is then freed: a summary
    /// may be megabytes, and a copy at each step would add up.
    private static func decodeBase64(_ encoded: inout [UInt8]) -> [UInt8]? {
        let data = encoded.withUnsafeMutableBytes { raw in
            raw.baseAddress.flatMap {
                Data(
                    base64Encoded: Data(bytesNoCopy: $0, count: raw.count, deallocator: .none),
                    options: .ignoreUnknownCharacters)
            }
        }
        encoded = []
        return data.map { [UInt8]($0) }
    }

    /// The base64 text between the markers (nil if there is no BEGIN marker).
    private static func block(_ input: inout ChunkedInput) throws(CaptureOpenError) -> [UInt8]? {
        // Find BEGIN, keeping only a marker's length of overlap between reads.
        while true {
            _ = try input.ensure(1 << 16)
            let window = Array(input.peek(input.available))
            if let at = find(beginMarker, in: window) {
                _ = input.take(at + beginMarker.count)
                break
            }
            if input.reachedEnd { return nil }
            _ = input.take(max(0, window.count - beginMarker.count))
        }
        // Skip the rest of the BEGIN line, then collect until END.
        var encoded: [UInt8] = []
        var skippingLine = true
        while try input.ensure(1) {
            let piece = Array(input.take(min(input.available, 1 << 16)))
            var start = 0
            if skippingLine {
                guard let nl = piece.firstIndex(of: 0x0a) else { continue }
                start = nl + 1
                skippingLine = false
            }
            encoded += piece[start...]
            if let end = find(endMarker, in: encoded) {
                let lineStart = encoded[..<end].lastIndex(of: 0x0a) ?? 0
                return Array(encoded[..<lineStart])
            }
            if encoded.count > encodedLimit {
                throw .unsupported(format: "btsnooz", detail: "no END:BTSNOOP_LOG_SUMMARY within \(encodedLimit) bytes")
            }
        }
        throw .unsupported(format: "btsnooz", detail: "the text ends before END:BTSNOOP_LOG_SUMMARY")
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count, let first = needle.first else { return nil }
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == first, haystack[i..<i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    init(blob: [UInt8], version: UInt8, last: Int64) {
        self.blob = blob
        self.version = version
        offset = 0
        info = CaptureInfo(
            format: "btsnooz", linkType: Int(version), linkTypeName: "Android btsnooz summary v\(version)")
        info.notes.append("record offsets are within the decompressed summary")
        info.size = Int64(blob.count)
        self.last = last
        deltas = sumDeltas()
    }

    private var headerLength: Int { version == 1 ? 7 : 9 }

    /// The sum of the deltas of the records that are whole (a u32 each: 8 MiB of records cannot
    /// bring it near Int64's range).
    private func sumDeltas() -> Int64 {
        var sum: Int64 = 0
        var r = ByteReader(blob)
        while let length = try? r.u16le() {
            if version == 2 { guard (try? r.u16le()) != nil else { break } }
            guard let delta = try? r.u32le(), (try? r.skip(max(Int(length), 1))) != nil else { break }
            sum += Int64(delta)
        }
        return sum
    }

    public mutating func next() throws(CaptureOpenError) -> CaptureItem? {
        if let p = problem {
            problem = nil
            offset = blob.count
            return .problem(p)
        }
        guard offset < blob.count else { return nil }
        var r = ByteReader(blob[offset...])
        let number = recordNumber + 1
        guard let length = try? r.u16le(), let original = version == 2 ? try? r.u16le() : length,
            let delta = try? r.u32le(), let type = try? r.u8(), length >= 1
        else {
            defer { offset = blob.count }
            return .problem(
                CaptureProblem(
                    diagnostic: Diagnostic(
                        CaptureDiagnostics.headerCut,
                        "btsnooz record \(number) at summary offset \(offset): its header is cut or its length is 0"),
                    recordNumber: number, fileOffset: Int64(offset), bytes: blob.count - offset))
        }
        let wanted = Int(length) - 1
        let payload = (try? r.bytes(wanted)) ?? r.rest()
        recordNumber = number
        deltasSoFar += Int64(delta)
        // The deltas of the records after this one; none for a record cut short, which is not in the sum.
        // A hostile last time minus them could pass Int64.min: it stays there (capture.time.absurd).
        let time = last.saturatingSubtracting(max(0, deltas - deltasSoFar))
        var record = CaptureRecord(
            number: number, fileOffset: Int64(offset), timestamp: Timestamp(microseconds: time),
            kind: .unknown, direction: type & 0xf0 == 0x10 ? .received : .sent,
            payload: payload, originalLength: max(Int(original) - 1, payload.count))
        record.headerLength = headerLength
        if payload.count < wanted {
            problem = CaptureProblem(
                diagnostic: Diagnostic(
                    CaptureDiagnostics.recordPastEnd,
                    "btsnooz record \(number) claims \(wanted) bytes; the summary ends after \(payload.count)"),
                recordNumber: number, fileOffset: Int64(offset))
        }
        offset += headerLength + payload.count
        switch type {
        case 0x10: record.kind = .event
        case 0x20: record.kind = .command
        case 0x11, 0x21: record.kind = .aclData
        case 0x12, 0x22: record.kind = .scoData
        case 0x17, 0x2d: record.kind = .isoData
        default:
            record.kind = .unknown
            record.noteCategory = "btsnooz type \(Hex.value(type, width: 2))"
        }
        return .record(record)
    }
}
