import BTLensCore
import BTLensDissect

/// How `index` and `export --dataset` read each capture: as `stats` does, with its app logs.
public struct CaptureReading: Sendable {
    public let configuration: Configuration
    public let archiveLimit: Int64
    /// btlens' version, the definitions and the options: what makes the rows besides the bytes.
    public let fingerprint: String
    public let appLogs: AppLogPairing

    public init(configuration: Configuration, archiveLimit: Int64, fingerprint: String, appLogs: AppLogPairing) {
        self.configuration = configuration
        self.archiveLimit = archiveLimit
        self.fingerprint = fingerprint
        self.appLogs = appLogs
    }

    /// A file the walk found, looked at but not read: its logs, and what would make its rows
    /// (the fingerprint and each log's name, size and time).
    struct Found {
        var file: CaptureFile
        var logs: [String]
        var madeBy: String
    }

    func look(_ path: String) -> Result<Found, CaptureWalk.Unread> {
        if appLogs.isLog(path) { return .failure(.appLog) }
        return CaptureFile.look(path).map { file in
            let logs = appLogs.logs(for: path)
            return Found(
                file: file, logs: logs,
                madeBy: logs.isEmpty ? fingerprint : fingerprint + "; app logs: " + appLogs.stamp(logs))
        }
    }

    /// Its rows into `sink`, and its `captures` row (which the caller writes last).
    func read(_ found: Found, into sink: any RowSink) throws -> CaptureFacts {
        var facts = try CaptureRows.read(
            found.file, configuration: configuration, archiveLimit: archiveLimit,
            appLog: try appLogs.merger(found.logs, capture: found.file.path), into: sink)
        facts.indexedBy = found.madeBy
        return facts
    }

    /// The row of a file that could not be read: why, and nothing else.
    func failed(_ found: Found, _ why: String) -> CaptureFacts {
        var facts = CaptureFacts(file: found.file)
        facts.error = why
        facts.indexedBy = found.madeBy
        return facts
    }
}
