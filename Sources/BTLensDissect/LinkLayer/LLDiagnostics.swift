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
        "After LL_START_ENC_REQ the connection's data PDUs are encrypted, and no key was given or derived: they are shown as such (said once per session)."
    )
    public static let decrypted = DiagnosticKind(
        "ll.decrypted", .note,
        "An encryption session is decrypted: the key (given with --ltk or --keys, or derived from a pairing in the capture) whose MIC checked on its first encrypted PDU."
    )
    public static let keyWrong = DiagnosticKind(
        "ll.key.wrong", .warning,
        "No key given or derived decrypts an encryption session (the MIC of its first encrypted PDU fails with each): its PDUs are shown encrypted, never decoded."
    )
    public static let micBad = DiagnosticKind(
        "ll.mic.bad", .warning,
        "An encrypted PDU whose MIC fails with its session's key at the expected packet counter and the few after it: not decoded."
    )
    public static let counterSkipped = DiagnosticKind(
        "ll.counter.skipped", .note,
        "An encrypted PDU decrypts at a packet counter past the expected one: the sender sent PDUs the sniffer did not hear."
    )
    public static let keyDerived = DiagnosticKind(
        "ll.key.derived", .note,
        "A key derived from a pairing the capture shows (LE legacy pairing's TK and STK, Secure Connections with the debug key) or distributed in it (an LTK in Encryption Information)."
    )
    public static let keyNotDerived = DiagnosticKind(
        "ll.key.not_derived", .note,
        "A pairing whose keys the capture does not give away (out of band data, Secure Connections without the debug key): what follows decrypts only with a key given."
    )

    public static let all = [
        crcBad, pduMalformed, connectionInferred, connectionLimit, encrypted, decrypted, keyWrong, micBad,
        counterSkipped, keyDerived, keyNotDerived,
    ]
}
