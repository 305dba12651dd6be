import BTLensCore

/// What the link layer of an over-the-air capture can say is wrong (Core v5.4 Vol 6 Part B).
public enum LLDiagnostics {
    public static let crcBad = DiagnosticKind(
        "ll.crc.bad", .warning,
        "The sniffer says the packet's CRC failed: it was heard damaged, and is counted, not decoded.")
    public static let pduMalformed = DiagnosticKind(
        "ll.pdu.malformed", .error,
        "A link-layer PDU is shorter than its header, its length field or the fields its type has.")
    public static let connectionInferred = DiagnosticKind(
        "ll.connection.inferred", .note,
        "Data channel PDUs on an access address whose CONNECT_IND is not in the capture: a connection is assumed, its roles and parameters unknown."
    )
    public static let connectionLimit = DiagnosticKind(
        "ll.connection.limit", .warning,
        "More access addresses in use at once than btlens follows; the packets of the one past the bound are not decoded."
    )
    public static let encrypted = DiagnosticKind(
        "ll.encrypted", .note,
        "After LL_START_ENC_REQ the connection's data PDUs are encrypted: they are shown as such, never decoded (said once per connection)."
    )

    public static let all = [crcBad, pduMalformed, connectionInferred, connectionLimit, encrypted]
}
