import BTLensCore

extension FramedStream {
    /// A gap or repeat of `sequence` after `last`, counted under `key` (a `sequence-per` field's
    /// value, said in the text and fields) or the stream's one counter.
    func sequenceCheck(_ sequence: UInt8, after last: UInt8, command: UInt16, key: UInt16?) -> Diagnostic? {
        let expected = last &+ 1
        // Most frames follow the one before: nothing to say, and no text to make.
        guard sequence != expected else { return nil }
        let per = key.map { (name: sequences.key?.rawValue ?? "command", value: $0) }
        let under = per.map { " for \($0.name) \(Hex.value($0.value, width: 2))" } ?? ""
        var diagnostic: Diagnostic
        if sequence == last {
            diagnostic = Diagnostic(
                FramingDiagnostics.sequenceDuplicate,
                "sequence \(sequence) again (command \(Hex.value(command, width: 2)))",
                fields: [("sequence", .int(sequence))])
        } else if sequence != expected {
            let missing = sequence &- expected
            diagnostic = Diagnostic(
                FramingDiagnostics.sequenceGap,
                "expected sequence \(expected)\(under), got \(sequence): \(missing) frame\(missing == 1 ? "" : "s") missing",
                fields: [("expected", .int(expected)), ("actual", .int(sequence)), ("missing", .int(missing))])
        } else {
            return nil
        }
        if let per { diagnostic.fields.append((per.name, .int(per.value))) }
        return diagnostic
    }
}
