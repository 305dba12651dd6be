import BTLensCore

/// Problems in AVDTP signalling (AVDTP 1.3 §8). The message's bytes are shown undecoded.
public enum AVDTPDiagnostics {
    public static let malformed = DiagnosticKind(
        "avdtp.malformed", .error,
        "An AVDTP signalling message is shorter than its signal's parameters need; it is shown undecoded.")
    public static let unexpectedFragment = DiagnosticKind(
        "avdtp.fragment.unexpected", .warning,
        "An AVDTP Continue or End packet with no Start before it (or of another transaction), a Start or Single packet while a fragmented message was incomplete (it is dropped), or a message whose packets were not as many as its Start said (it is decoded)."
    )
    public static let fragmentLimit = DiagnosticKind(
        "avdtp.fragment.limit", .warning,
        "An AVDTP message being joined from its packets would pass 65,536 bytes; it is dropped and the rest of its packets are skipped."
    )

    public static let all = [malformed, unexpectedFragment, fragmentLimit]
}
