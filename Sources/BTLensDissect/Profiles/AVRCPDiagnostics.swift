import BTLensCore

/// The problems the AVCTP assembler and the AVRCP decoder find.
public enum AVRCPDiagnostics {
    public static let avctpMalformed = DiagnosticKind(
        "avctp.malformed", .error, "An AVCTP packet is shorter than the header its packet type needs.")
    public static let fragmentUnexpected = DiagnosticKind(
        "avctp.fragment.unexpected", .warning,
        "An AVCTP continue or end packet with no message in progress (or of another transaction), a start or single packet while one was in progress (it is dropped), or a message whose packets were not as many as its start said."
    )
    public static let fragmentLimit = DiagnosticKind(
        "avctp.fragment.limit", .warning,
        "An AVCTP message being joined from its packets would pass 65,536 bytes; it is dropped.")
    public static let malformed = DiagnosticKind(
        "avrcp.malformed", .error,
        "An AVRCP PDU is shorter than its parameter length or its parameters say; what could be read is shown.")

    public static let all = [avctpMalformed, fragmentUnexpected, fragmentLimit, malformed]
}
