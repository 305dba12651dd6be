import BTLensCore

public enum CreditDiagnostics {
    public static let noCredits = DiagnosticKind(
        "l2cap.credits.none", .warning,
        "A K-frame arrived on a credit-based channel whose receiver had granted no credits left (Core Vol 3 Part A §10.1)."
    )
    public static let stalled = DiagnosticKind(
        "l2cap.credits.stalled", .note,
        "A credit-based channel's sender ran out of credits; said when the receiver grants more, with how long it waited."
    )
    public static let overflow = DiagnosticKind(
        "l2cap.credits.overflow", .error,
        "A Flow Control Credit Indication took a channel's credits past 65535 (Core Vol 3 Part A §4.24).")
    public static let sduOverMTU = DiagnosticKind(
        "l2cap.sdu.over_mtu", .error, "An SDU's length is larger than the MTU its receiver announced.")
    public static let kframeOverMPS = DiagnosticKind(
        "l2cap.kframe.over_mps", .warning, "A K-frame's payload is larger than the MPS its receiver announced.")
    public static let sduOverrun = DiagnosticKind(
        "l2cap.sdu.overrun", .error,
        "K-frames carried more bytes than their SDU's length; the SDU ends there and the excess is shown undecoded.")
    public static let sduIncomplete = DiagnosticKind(
        "l2cap.sdu.incomplete", .warning,
        "An SDU was still incomplete at disconnection or at the end of the capture; its bytes are shown undecoded.")
    public static let all = [noCredits, stalled, overflow, sduOverMTU, kframeOverMPS, sduOverrun, sduIncomplete]
}

/// One direction of an L2CAP credit-based channel (LE Credit Based or Enhanced Credit Based flow
/// control, Core Vol 3 Part A §3.4.3, §10.1): the receiver's MTU and MPS, the credits its sender
/// holds, and the SDU being reassembled from K-frames. An SDU is at most 65535 bytes (its length is
/// 16 bits), so a channel holds at most that much.
struct CreditBasedChannel {
    enum Output {
        /// A whole SDU, with the record its first K-frame arrived in.
        case sdu([UInt8], firstRecord: Int)
        /// Bytes that belong to no SDU.
        case undecoded(ArraySlice<UInt8>)
        case diagnostic(Diagnostic)
    }

    var mtu: Int
    var mps: Int
    var credits: Int
    /// Where the sender spent its last credit, while it has none.
    private var exhausted: RecordPlace?
    private var sdu: (length: Int, bytes: [UInt8], firstRecord: Int)?

    init(mtu: Int, mps: Int, credits: Int) {
        self.mtu = mtu
        self.mps = mps
        self.credits = credits
    }

    /// A Flow Control Credit Indication from the receiver.
    mutating func grant(_ n: Int, at place: RecordPlace, cid: UInt16) -> [Diagnostic] {
        var out: [Diagnostic] = []
        if let since = exhausted, n > 0 {
            let waited = Int(place.time.microseconds &- since.time.microseconds) / 1000
            out.append(
                Diagnostic(
                    CreditDiagnostics.stalled,
                    "channel \(Hex.value(cid, width: 4)) had no credits from #\(since.record) to #\(place.record) (\(waited) ms)",
                    fields: [("cid", .hex(cid)), ("from_record", .int(since.record)), ("stalled_ms", .int(waited))]))
            exhausted = nil
        }
        credits += n
        if credits > 0xffff {
            out.append(
                Diagnostic(
                    CreditDiagnostics.overflow,
                    "channel \(Hex.value(cid, width: 4)): \(n) more credits make \(credits), past 65535",
                    fields: [("cid", .hex(cid)), ("credits", .int(credits))]))
            credits = 0xffff
        }
        return out
    }

    /// One K-frame's information payload: the first of an SDU starts with its 16-bit length.
    mutating func kframe(_ payload: ArraySlice<UInt8>, at place: RecordPlace, cid: UInt16) -> [Output] {
        var out: [Output] = []
        let name = Hex.value(cid, width: 4)
        if credits == 0 {
            out.append(
                .diagnostic(
                    Diagnostic(
                        CreditDiagnostics.noCredits, "K-frame on channel \(name) with no credits left",
                        fields: [("cid", .hex(cid))])))
        } else {
            credits -= 1
            if credits == 0 { exhausted = place }
        }
        if payload.count > mps {
            out.append(
                .diagnostic(
                    Diagnostic(
                        CreditDiagnostics.kframeOverMPS,
                        "K-frame on channel \(name): \(payload.count) bytes, MPS \(mps)",
                        fields: [("cid", .hex(cid)), ("length", .int(payload.count)), ("mps", .int(mps))])))
        }
        var rest = payload
        if sdu == nil {
            var r = ByteReader(payload)
            guard let length = try? r.u16le() else {
                out.append(.undecoded(payload))
                return out
            }
            rest = payload.dropFirst(2)
            if Int(length) > mtu {
                out.append(
                    .diagnostic(
                        Diagnostic(
                            CreditDiagnostics.sduOverMTU,
                            "SDU on channel \(name): \(length) bytes, MTU \(mtu)",
                            fields: [("cid", .hex(cid)), ("length", .int(length)), ("mtu", .int(mtu))])))
            }
            sdu = (Int(length), [], place.record)
        }
        guard var s = sdu else { return out }
        let take = min(rest.count, s.length - s.bytes.count)
        s.bytes += rest.prefix(take)
        if s.bytes.count == s.length {
            out.append(.sdu(s.bytes, firstRecord: s.firstRecord))
            sdu = nil
        } else {
            sdu = s
        }
        if take < rest.count {
            out.append(
                .diagnostic(
                    Diagnostic(
                        CreditDiagnostics.sduOverrun,
                        "SDU on channel \(name) declared \(s.length) bytes; its K-frames carry \(rest.count - take) more",
                        fields: [("cid", .hex(cid)), ("length", .int(s.length)), ("excess", .int(rest.count - take))])))
            out.append(.undecoded(rest.dropFirst(take)))
        }
        return out
    }

    /// The channel closes: an SDU still incomplete is said and its bytes returned.
    mutating func close(cid: UInt16) -> [Output] {
        guard let s = sdu else { return [] }
        sdu = nil
        return [
            .diagnostic(
                Diagnostic(
                    CreditDiagnostics.sduIncomplete,
                    "SDU on channel \(Hex.value(cid, width: 4)) begun at #\(s.firstRecord): \(s.bytes.count) of \(s.length) bytes",
                    fields: [("cid", .hex(cid)), ("have", .int(s.bytes.count)), ("need", .int(s.length))])),
            .undecoded(s.bytes[...]),
        ]
    }
}
