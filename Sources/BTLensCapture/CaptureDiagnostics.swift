import BTLensCore

/// Diagnostics about the capture file itself.
public enum CaptureDiagnostics {
    public static let recordTruncated = DiagnosticKind(
        "capture.truncated", .note,
        "The capture kept fewer bytes of the record than the packet had (snap length, filtered log); not a protocol error."
    )
    public static let recordPastEnd = DiagnosticKind(
        "capture.record.past_end", .error,
        "A record's length runs past the end of the file: the file was cut while being written or copied.")
    public static let followStopped = DiagnosticKind(
        "capture.follow.stopped_in_record", .note,
        "follow was stopped (SIGINT, SIGTERM) while a record was arriving: the part that had arrived is not decoded; the capture is not cut."
    )
    public static let headerCut = DiagnosticKind(
        "capture.record.header_cut", .error,
        "The file ends inside a record header.")
    public static let lengthAbsurd = DiagnosticKind(
        "capture.record.length_absurd", .error,
        "A record claims a length no capture format allows; reading stops there.")
    public static let lengthInconsistent = DiagnosticKind(
        "capture.record.length_inconsistent", .warning,
        "A record's included length is larger than its original length.")
    public static let recordEmpty = DiagnosticKind(
        "capture.record.empty", .warning,
        "A record holds no bytes at all where at least a packet type was expected.")
    public static let airHeaderShort = DiagnosticKind(
        "capture.air.header_short", .warning,
        "A sniffer's record is shorter than the header its link type puts before the packet (256: 10 bytes, 272: 17)."
    )
    public static let airHeaderMismatch = DiagnosticKind(
        "capture.air.header_mismatch", .warning,
        "An nRF Sniffer header (LINKTYPE 272) says a length or version its record contradicts: the packet is read after the 17 bytes the format fixes."
    )
    public static let unknownPacketType = DiagnosticKind(
        "capture.packet_type.unknown", .warning,
        "A record's packet type (H4 indicator, monitor opcode) is not one btlens knows.")
    public static let h4InH1File = DiagnosticKind(
        "capture.btsnoop.h4_in_1001", .note,
        "The file says datalink 1001 (no H4 byte) but its records hold H4 bytes; read as H4.")

    public static let androidFiltered = DiagnosticKind(
        "capture.android_filtered", .note,
        "ACL packets cut to 14 bytes, or to 14 with the H4 byte: an Android \"filtered\" snoop log. Payloads above the L2CAP header are not in the file; said once, not per record."
    )

    /// Android's filtered mode keeps this many bytes of an ACL packet (MAX_HCI_ACL_LEN in snoop_logger.cc):
    /// of the packet in some versions, of the record with its H4 byte in AOSP's SnoopLogger.
    public static let androidFilteredACLLength = 14

    /// Whether a cut ACL record is cut as Android's filtered mode cuts it.
    public static func isAndroidFilteredCut(_ r: CaptureRecord) -> Bool {
        r.kind == .aclData
            && (r.payload.count == androidFilteredACLLength
                || r.hadIndicator && r.payload.count + 1 == androidFilteredACLLength)
    }
    public static let archiveDamaged = DiagnosticKind(
        "capture.archive.damaged", .error,
        "The bugreport .zip member read is damaged (its deflate data cut or corrupt, its CRC-32 or size not the archive's), or the archive lost its central directory: its records are read as far as they go; said after the last."
    )
    public static let byteOrderChanged = DiagnosticKind(
        "capture.pklg.byte_order_changed", .warning,
        "A PacketLogger file changes byte order midway (two recordings joined): read on in the new order.")
    public static let timeBackwards = DiagnosticKind(
        "capture.time.backwards", .warning,
        "A record's timestamp is more than a second before the record's before it: the clock was set back, or captures were joined out of order. Times between are as recorded."
    )
    public static let timeFraction = DiagnosticKind(
        "capture.time.fraction_invalid", .warning,
        "A record's microseconds field is 1,000,000 or more: the header is corrupt. The time is read as the field says (seconds plus that many microseconds)."
    )
    public static let timeAbsurd = DiagnosticKind(
        "capture.time.absurd", .note,
        "A timestamp before 2000 or after 2100: the phone's clock was not set, or the header is corrupt; said once.")

    /// Steps back of less than this are left alone: loggers on several threads reorder records a little.
    public static let backwardsTolerance: Int64 = 1_000_000
    /// 2000-01-01 and 2100-01-01, in microseconds since 1970.
    public static let plausibleTimes: ClosedRange<Int64> = 946_684_800_000_000...4_102_444_800_000_000

    public static let all: [DiagnosticKind] = [
        recordTruncated, androidFiltered, recordPastEnd, followStopped, headerCut, lengthAbsurd, lengthInconsistent,
        recordEmpty, airHeaderShort, airHeaderMismatch,
        unknownPacketType, h4InH1File, archiveDamaged, byteOrderChanged, timeBackwards, timeFraction, timeAbsurd,
    ]
}
