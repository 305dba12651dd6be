import BTLensCore

/// What following a sniffer capture's link-layer state can say: PDUs the sniffer did not hear,
/// connections lost, advertising chains broken (Core v5.4 Vol 6 Part B §4.5.9, §4.5.2, §2.3.4).
public enum LLStateDiagnostics {
    public static let packetsMissed = DiagnosticKind(
        "ll.packets.missed", .warning,
        "The sequence numbers (SN/NESN) or the connection event counter show PDUs the sniffer did not hear: a side's new SN with no acknowledgement heard, a NESN acknowledging a PDU never heard, connection events skipped."
    )
    public static let counterBack = DiagnosticKind(
        "ll.event_counter.back", .warning,
        "The sniffer's connection event counter went back (or jumped by half its range): counting starts again from it."
    )
    public static let connectionLost = DiagnosticKind(
        "ll.connection.lost", .note,
        "No PDU on a connection for longer than its supervision timeout: it is taken as lost at its last PDU plus the timeout (inferred from what the sniffer heard; the finding hci.disconnect.timeout follows)."
    )
    public static let chainMissing = DiagnosticKind(
        "ll.aux.chain.missing", .warning,
        "An advertising PDU's AuxPtr announced a further part of its chain that did not come when and where it said: the chain's data ends there, incomplete."
    )
    public static let chainLimit = DiagnosticKind(
        "ll.aux.chain.limit", .warning,
        "An advertising chain longer than btlens joins (in parts or bytes): its later parts are followed, their AdvData not joined; or more chains awaited at once than it follows: the new one is not followed."
    )

    public static let all = [packetsMissed, counterBack, connectionLost, chainMissing, chainLimit]
}
