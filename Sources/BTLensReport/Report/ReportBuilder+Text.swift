import BTLensCore
import BTLensDissect

/// How a report says what it keeps: texts and dumps cut to a bound, so that 20,000 rows stay small,
/// and the names of streams, log lines and the `--from`/`--to` range.
extension ReportBuilder {
    /// Bytes of an undecoded event a row shows, as the text timeline does.
    static let bytesShown = 64
    /// UTF-8 bytes of a row's text or of a field's value kept; a note may be a megabyte.
    static let textShown = 1024

    /// `s`, or its first `textShown` bytes (whole characters) and a count of the rest.
    static func cut(_ s: String) -> String {
        guard s.utf8.count > textShown else { return s }
        let scalars = s.unicodeScalars
        var kept = 0
        var end = scalars.startIndex
        while end < scalars.endIndex, kept + scalars[end].utf8.count <= textShown {
            kept += scalars[end].utf8.count
            end = scalars.index(after: end)
        }
        return String(scalars[..<end]) + " … (+\(s.utf8.count - kept) bytes)"
    }

    /// A row shows what the text timeline shows, the first `bytesShown` bytes and a count of the
    /// rest: 20,000 rows of 64 KiB values would be a 4 GB page, and its rows would stay in memory.
    static func dump<C: Collection<UInt8>>(_ bytes: C, length: Int) -> Report.Dump {
        .bytes(Array(bytes.prefix(bytesShown)), length: length)
    }

    /// `--from`/`--to` in words: `records #5 to #10`, `from 2.5 s`.
    static func describe(_ range: ClosedRange<Double>, time: Bool) -> String {
        // A bound past Int's range (a library caller's 1e19; the CLI refuses it) is said as given:
        // converting it would trap.
        func bound(_ v: Double) -> String {
            time
                ? "\(MessageValue.number(v)) s"
                : Int(exactly: v.rounded(.down)).map { "#\($0)" } ?? "#\(MessageValue.number(v))"
        }
        let what = time ? "the events" : "records"
        switch (range.lowerBound > 0, range.upperBound < .greatestFiniteMagnitude) {
        case (true, true): return "\(what) \(bound(range.lowerBound)) to \(bound(range.upperBound)) (--from/--to)"
        case (false, true): return "\(what) up to \(bound(range.upperBound)) (--to)"
        default: return "\(what) from \(bound(range.lowerBound)) (--from)"
        }
    }

    static func describe(_ v: FieldValue) -> String {
        switch v {
        case .int(let i): return String(i)
        case .hex(let i, let digits): return Hex.value(i, width: digits)
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .bytes(let b): return Hex.string(b)
        case .decimal(let units, let scale): return FieldValue.decimalText(units, scale: scale)
        }
    }

    /// `0x0013 (fff3)`, `EA 5 (com.x)`, `RFCOMM 2`.
    static func stream(_ a: FrameInfo) -> String {
        if let h = a.attHandle {
            return Hex.value(h, width: 4) + (a.uuid.map { " (\(GATTNames.name($0) ?? $0.description))" } ?? "")
        }
        if let c = a.rfcommChannel { return "RFCOMM \(c)" }
        if let l = a.l2capChannel, l.psm == 0 { return "CID \(Hex.value(l.cid, width: 4))" }
        if let l = a.l2capChannel { return "PSM \(Hex.value(l.psm, width: 4)) CID \(Hex.value(l.cid, width: 4))" }
        return "EA \(a.eaSession.map(String.init) ?? "?")" + (a.protocolName.map { " (\($0))" } ?? "")
    }

    /// A lane's label: `L12` and the message's first 36 characters on one line.
    static func label(_ l: Report.LogLine) -> String {
        let flat = l.message.split(whereSeparator: \.isNewline).joined(separator: " ")
        return "L\(l.line) " + (flat.count > 36 ? flat.prefix(36) + "…" : flat)
    }
}
