import BTLensCore

/// What framing a stream finds wrong, for the A5 frame and every vendor variant. The ids keep the
/// `a5.` prefix they were published with (the JSONL contract).
public enum FramingDiagnostics {
    public static let checksumBad = DiagnosticKind(
        "a5.checksum.bad", .error,
        "A frame's checksum differs from the one its framing computes over its bytes (sum8 for A5); the frame is still shown."
    )
    public static let sequenceGap = DiagnosticKind(
        "a5.sequence.gap", .warning, "A frame's sequence number skips ahead of the one expected: frames are missing.")
    public static let sequenceDuplicate = DiagnosticKind(
        "a5.sequence.duplicate", .warning, "A frame repeats the sequence number of the frame before it.")
    public static let resync = DiagnosticKind(
        "a5.resync", .warning, "Bytes that do not form a frame were skipped before the next plausible frame.")
    public static let truncated = DiagnosticKind(
        "a5.truncated", .warning, "The stream ended (capture end, disconnection or a capture cut) inside a frame.")
    public static let versionUnknown = DiagnosticKind(
        "a5.version.unknown", .note, "A frame with a version other than 0x01; it is decoded as version 1.")

    public static let fragmentMissing = DiagnosticKind(
        "a5.fragment.missing", .warning,
        "A message sent in several frames lost some of them (out of order, missing, too large, or the stream ended); its frames are dropped."
    )

    public static let preamble = DiagnosticKind(
        "a5.preamble", .note, "A stream began with its framing's preamble, before its first frame (not junk).")

    public static let all = [
        checksumBad, sequenceGap, sequenceDuplicate, resync, truncated, versionUnknown, fragmentMissing, preamble,
    ]
}
