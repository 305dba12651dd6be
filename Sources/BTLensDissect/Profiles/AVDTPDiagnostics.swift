import BTLensCore

/// Problems in AVDTP signalling (AVDTP 1.3 §8). The message's bytes are shown undecoded.
public enum AVDTPDiagnostics {
    public static let malformed = DiagnosticKind(
        "avdtp.malformed", .error,
        "An AVDTP signalling message is shorter than its signal's parameters need; it is shown undecoded.")
    public static let unexpectedFragment = DiagnosticKind(
        "avdtp.fragment.unexpected", .warning,
        "An AVDTP Continue or End packet with no Start before it, or a Start or Single packet while a fragmented message was incomplete; the fragments that cannot be joined are shown undecoded."
    )
    public static let fragmentCount = DiagnosticKind(
        "avdtp.fragment.count", .warning,
        "A fragmented AVDTP message ended after more or fewer packets than its Start packet announced; it is decoded as joined."
    )
    public static let tooLong = DiagnosticKind(
        "avdtp.fragment.too_long", .warning,
        "A fragmented AVDTP message grew past 64 KiB (btlens' bound); its fragments are shown undecoded.")

    public static let all = [malformed, unexpectedFragment, fragmentCount, tooLong]
}
