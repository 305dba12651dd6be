import BTLensCapture
import BTLensCore
import BTLensDissect

/// Where every byte of a capture went: file and record framing, packet bytes decoded, packet bytes
/// reported as undecoded (with their records), vendor HCI parameters (which no specification
/// describes, so nothing decodes), controllers' debug records (the vendor's own data, on no
/// connection), bytes kept of records the capture cut short, and bytes never
/// read because reading stopped. The parts are counted separately; they add up to the
/// file's size, and a difference (`unaccounted`) would be a reader that skipped bytes silently.
public struct ByteAccounting: Sendable, Equatable {
    /// Records named as holding undecoded bytes; the count goes on beyond them.
    public static let recordLimit = 20

    public var fileSize: Int64 = 0
    public var framing: Int64 = 0
    public var packets: Int64 = 0
    public var undecoded: Int64 = 0
    public var undecodedRecords: [Int] = []
    public var undecodedRecordCount = 0
    public var vendor: Int64 = 0
    public var debug: Int64 = 0
    public var truncated: Int64 = 0
    public var unread: Int64 = 0

    public var decoded: Int64 { packets - undecoded - vendor - debug - truncated }
    public var unaccounted: Int64 { fileSize - framing - packets - unread }

    mutating func record(_ r: CaptureRecord) {
        framing += Int64(r.headerLength)
        packets += Int64(r.payload.count)
        if r.isTruncated { truncated += Int64(r.payload.count) }
    }

    /// A problem that stands for bytes no record carries (a record that could not be classified).
    mutating func problem(_ p: CaptureProblem) { framing += Int64(p.bytes) }

    /// Undecoded bytes reported at `record`; those of a cut record are already counted as truncated.
    mutating func undecoded(_ n: Int, record: Int, inTruncatedRecord: Bool) {
        guard n > 0, !inTruncatedRecord else { return }
        undecoded += Int64(n)
        // In order, once each: a diagnostic names the record where its bytes began, which may come
        // after a later record's.
        if undecodedRecords.last == record { return }
        let at = undecodedRecords.lastIndex { $0 < record }.map { $0 + 1 } ?? 0
        if at < undecodedRecords.count, undecodedRecords[at] == record { return }
        undecodedRecordCount += 1
        if undecodedRecords.count < Self.recordLimit { undecodedRecords.insert(record, at: at) }
    }

    /// Parameter bytes of a vendor command or event; those of a cut record are already counted as truncated.
    mutating func vendor(_ n: Int, inTruncatedRecord: Bool) {
        if !inTruncatedRecord { vendor += Int64(n) }
    }

    /// The data of a controller's debug record; that of a cut record is already counted as truncated.
    mutating func debug(_ n: Int, inTruncatedRecord: Bool) {
        if !inTruncatedRecord { debug += Int64(n) }
    }

    /// Reading is over: the file header, and what was left unread.
    mutating func finish(info: CaptureInfo, bytesRead: Int64) {
        framing += Int64(info.headerLength)
        fileSize = info.size ?? bytesRead
        unread = max(fileSize - bytesRead, 0)
    }

    public var lines: [String] {
        let width = String(fileSize).count
        func row(_ name: String, _ n: Int64, _ what: String) -> String {
            "  \(name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(String(repeating: " ", count: max(width - String(n).count, 0)))\(n)  \(what)"
        }
        let records =
            undecodedRecords.map { "#\($0)" }.joined(separator: " ")
            + (undecodedRecordCount > undecodedRecords.count
                ? " and \(undecodedRecordCount - undecodedRecords.count) more" : "")
        var out = [
            "Bytes:       \(fileSize) "
                + (unaccounted == 0 ? "(every one accounted for)" : "(\(unaccounted) NOT accounted for)"),
            row("framing", framing, "file and record headers, H4 and pseudo-headers"),
            row("decoded", decoded, "packet bytes decoded"),
            row(
                "undecoded", undecoded,
                undecodedRecordCount == 0
                    ? "reported undecoded"
                    : "reported undecoded, in \(undecodedRecordCount) record\(undecodedRecordCount == 1 ? "" : "s"): \(records)"
            ),
            row("vendor", vendor, "vendor HCI command and event parameters, not decoded"),
            row("debug", debug, "controllers' debug records (logs, memory dumps), not decoded"),
            row("truncated", truncated, "kept of records the capture cut short"),
            row("unread", unread, "after reading stopped"),
        ]
        if unaccounted != 0 { out.append(row("missing", unaccounted, "skipped by the reader without a word: a bug")) }
        return out
    }

    func json(_ w: inout JSONWriter) {
        w.beginObject()
        w.field("file", Int(fileSize))
        w.field("framing", Int(framing))
        w.field("decoded", Int(decoded))
        w.field("undecoded", Int(undecoded))
        w.key("undecoded_records")
        w.beginArray()
        for r in undecodedRecords { w.int(r) }
        w.endArray()
        w.field("undecoded_record_count", undecodedRecordCount)
        w.field("vendor", Int(vendor))
        w.field("debug", Int(debug))
        w.field("truncated", Int(truncated))
        w.field("unread", Int(unread))
        w.field("unaccounted", Int(unaccounted))
        w.endObject()
    }
}
