import BTLensCore

public enum AVDTPMediaDiagnostics {
    public static let gap = DiagnosticKind(
        "avdtp.media.gap", .warning,
        "RTP sequence numbers on an AVDTP media channel skipped: packets were lost before the capture saw them (RFC 3550 §5.1)."
    )
    public static let all = [gap]
}

/// One AVDTP stream's media packets, counted and never kept (AVDTP 1.3 §7.2: an RTP header, then
/// the codec's frames): how many, how many bytes, over how long, and gaps in RTP sequence numbers.
struct AVDTPMediaCount {
    var seid: UInt8?
    private(set) var packets = 0
    private(set) var bytes = 0
    private(set) var lost = 0
    /// Packets too short for an RTP header, or not RTP version 2.
    private(set) var notRTP = 0
    private var first: RecordPlace?
    private var last: RecordPlace?
    private var nextSequence: UInt16?

    init(seid: UInt8?) { self.seid = seid }

    /// One media packet; a diagnostic when its RTP sequence number is not the one expected.
    mutating func count(_ packet: ArraySlice<UInt8>, at place: RecordPlace, cid: UInt16) -> Diagnostic? {
        packets += 1
        bytes += packet.count
        if first == nil { first = place }
        last = place
        var r = ByteReader(packet)
        guard let v = try? r.u8(), v >> 6 == 2, (try? r.u8()) != nil, let sequence = try? r.u16be(), packet.count >= 12
        else {
            notRTP += 1
            return nil
        }
        defer { nextSequence = sequence &+ 1 }
        guard let expected = nextSequence, sequence != expected else { return nil }
        let missing = Int(sequence &- expected)
        // A number from the past (reordered or repeated) is no loss; only a forward jump is.
        guard missing < 0x8000 else { return nil }
        lost += missing
        return Diagnostic(
            AVDTPMediaDiagnostics.gap,
            "media channel \(Hex.value(cid, width: 4)): RTP sequence \(expected) expected, \(sequence) found: \(missing) packet\(missing == 1 ? "" : "s") missing",
            fields: [("expected", .int(expected)), ("actual", .int(sequence)), ("missing", .int(missing))])
    }

    /// The count as an `avdtp.media` event's message (with its endpoint's codec now), and a fresh
    /// count for the same stream.
    mutating func summary(codec: String?) -> ProfileMessage? {
        guard let first, let last else { return nil }
        let micros = max(0, last.time.microseconds &- first.time.microseconds)
        var fields: [(String, FieldValue)] = []
        if let seid { fields.append(("seid", .int(seid))) }
        if let codec { fields.append(("codec", .string(codec))) }
        fields += [
            ("packets", .int(packets)), ("bytes", .int(bytes)), ("duration_ms", .int(Int(micros / 1000))),
            ("first_record", .int(first.record)), ("last_record", .int(last.record)),
        ]
        if micros > 0 {
            // Tenths: packets per second and kbit/s over the time from the first packet to the last.
            fields.append(("packets_per_s", .decimal(Int64(packets) * 10_000_000 / micros, scale: 1)))
            fields.append(("kbps", .decimal(Int64(bytes) * 80_000 / micros, scale: 1)))
        }
        if lost > 0 { fields.append(("lost", .int(lost))) }
        if notRTP > 0 { fields.append(("not_rtp", .int(notRTP))) }
        let message = ProfileMessage(.avdtpMedia, "Media", fields)
        self = AVDTPMediaCount(seid: seid)
        return message
    }
}
