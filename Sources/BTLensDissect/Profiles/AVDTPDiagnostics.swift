import BTLensCore

/// Problems in AVDTP signalling (AVDTP 1.3 §8). The message's bytes are shown undecoded.
public enum AVDTPDiagnostics {
    public static let malformed = DiagnosticKind(
        "avdtp.malformed", .error,
        "An AVDTP signalling message is shorter than its signal's parameters need; it is shown undecoded.")

    public static let all = [malformed]
}
