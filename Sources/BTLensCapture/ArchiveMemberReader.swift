import BTLensCore

/// The capture inside a damaged bugreport member, read as far as it goes, with what is wrong said
/// after its last record as `capture.archive.damaged`: a diagnostic reaches every command (the
/// timeline, `convert`, the store), where the file's notes are shown by `stats` and the report only.
struct ArchiveMemberReader: CaptureReader {
    private var inner: any CaptureReader
    private var damage: Diagnostic?
    private var lastRecord = 0

    init(_ inner: any CaptureReader, member: String, damage: String) {
        self.inner = inner
        self.damage = Diagnostic(
            CaptureDiagnostics.archiveDamaged, "bugreport member \(member) is damaged: \(damage)",
            fields: [("member", .string(member))])
    }

    var info: CaptureInfo { inner.info }
    var bytesRead: Int64 { inner.bytesRead }

    mutating func addNote(_ note: String) { inner.addNote(note) }

    mutating func next() throws(CaptureOpenError) -> CaptureItem? {
        if let item = try inner.next() {
            if case .record(let r) = item { lastRecord = r.number }
            return item
        }
        guard let said = damage else { return nil }
        damage = nil
        return .problem(CaptureProblem(diagnostic: said, recordNumber: lastRecord + 1, fileOffset: inner.bytesRead))
    }
}
