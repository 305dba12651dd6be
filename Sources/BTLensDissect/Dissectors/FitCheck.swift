import BTLensCore

extension DissectorDiagnostics {
    public static let mismatch = DiagnosticKind(
        "a5.definition.mismatch", .warning,
        "Most frames of a stream fail to decode with the dissector bound to it (at least 32, more than half): it does not seem to fit the device. Said once per stream."
    )
}

/// Whether a stream's dissector fits the device: a definition forced onto another device, or bound
/// by UUIDs another vendor's part uses too, fails on nearly every frame, and a user should hear it
/// once, beside the flood of its diagnostics, so as to look at the binding.
///
/// A class shared by every copy of its stream's label: the event path sees only the label. One per
/// stream with a dissector, freed with the stream (on disconnection). A frame costs a flag test and
/// an increment, two more when it fails; nothing is counted once the stream has been said.
final class FitCheck {
    /// A stream is judged after this many frames.
    static let minimumFrames = 32

    private struct Counts {
        var frames = 0
        var failed = 0
        /// Failed frames by their first reason, in `reasons` order.
        var by = (0, 0, 0, 0, 0)
        var said = false
    }

    private static let reasons = [
        "unknown command", "payload short", "payload extra", "field invalid", "other problems",
    ]
    private var counts = Counts()

    /// Counts one decoded frame; true once, when the stream's frames show that the dissector does not fit.
    func count(_ decoded: borrowing DecodedMessage) -> Bool {
        count(failure: Self.failure(decoded))
    }

    /// Counts a frame named without decoding it (`MessageVerdict`): it failed only if unknown.
    func count(_ verdict: borrowing MessageVerdict) -> Bool {
        count(failure: verdict.name == nil ? 0 : nil)
    }

    private func count(failure reason: Int?) -> Bool {
        guard !counts.said else { return false }
        counts.frames += 1
        guard let reason else { return false }
        counts.failed += 1
        switch reason {
        case 0: counts.by.0 += 1
        case 1: counts.by.1 += 1
        case 2: counts.by.2 += 1
        case 3: counts.by.3 += 1
        default: counts.by.4 += 1
        }
        guard counts.frames >= Self.minimumFrames, counts.failed * 2 > counts.frames else { return false }
        counts.said = true
        return true
    }

    /// Why a frame failed (an index in `reasons`), or nil when it decoded.
    private static func failure(_ decoded: borrowing DecodedMessage) -> Int? {
        guard decoded.name != nil else { return 0 }
        guard let kind = decoded.problems.first?.kind else { return nil }
        switch kind {
        case DissectorDiagnostics.payloadShort: return 1
        case DissectorDiagnostics.payloadExtra: return 2
        case DissectorDiagnostics.fieldInvalid: return 3
        default: return 4
        }
    }

    /// What the stream showed: `30 of 32 frames on att_handle 0x0015 fail to decode with …`.
    func note(_ dissector: any MessageDissector, stream: (String, FieldValue)) -> Diagnostic {
        let c = counts
        let by = [c.by.0, c.by.1, c.by.2, c.by.3, c.by.4]
        let why = by.indices.filter { by[$0] > 0 }.sorted { by[$0] > by[$1] || (by[$0] == by[$1] && $0 < $1) }
            .map { "\(by[$0]) \(Self.reasons[$0])" }.joined(separator: ", ")
        let definition = dissector.origin != "built-in"
        let advice = definition ? "; check its bind: (devices:) and any --decode-as, or run with --no-dissectors" : ""
        return Diagnostic(
            DissectorDiagnostics.mismatch,
            "this \(definition ? "definition" : "dissector") does not seem to fit this device: \(c.failed) of \(c.frames) frames on \(Self.describe(stream)) fail to decode with \(dissector.name) (\(dissector.origin): \(why))\(advice)",
            fields: [
                ("dissector", .string(dissector.name)), ("origin", .string(dissector.origin)),
                ("failed", .int(c.failed)), ("frames", .int(c.frames)),
            ])
    }

    /// `att_handle 0x0015`, `ea_session 3`, `dlci 4`.
    private static func describe(_ stream: (String, FieldValue)) -> String {
        switch stream.1 {
        case .hex(let v, let digits): return "\(stream.0) \(Hex.value(v, width: digits))"
        case .int(let v): return "\(stream.0) \(v)"
        default: return stream.0
        }
    }
}
