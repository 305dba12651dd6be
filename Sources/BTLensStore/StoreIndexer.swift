import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import Foundation

/// `btlens index`: each capture under the paths read on its own core into the store; a file whose
/// size and time (or else bytes) did not change since it was indexed by the same btlens and
/// definitions is passed over, and one that is gone is pruned.
public struct StoreIndexer: Sendable {
    public let store: Store
    public let configuration: Configuration
    /// The btlens version and definitions that make the rows: a change of either indexes again.
    public let fingerprint: String
    public let archiveLimit: Int64
    public let appLogs: AppLogPairing

    public init(
        store: Store, configuration: Configuration, fingerprint: String, archiveLimit: Int64,
        appLogs: AppLogPairing = AppLogPairing()
    ) {
        self.store = store
        self.configuration = configuration
        self.fingerprint = fingerprint
        self.archiveLimit = archiveLimit
        self.appLogs = appLogs
    }

    /// What became of one file.
    public enum Outcome: Sendable, Equatable {
        case indexed(frames: Int, diagnostics: Int)
        case unchanged
        /// Its row says why it could not be read.
        case failed(String)
        /// Not a capture (a README, a log): not in the store.
        case passedOver(String)
    }

    public struct Summary: Sendable {
        public var files: [(path: String, outcome: Outcome)] = []
        public var pruned = 0
        public var seconds = 0.0
        public func count(_ match: (Outcome) -> Bool) -> Int { files.filter { match($0.outcome) }.count }
    }

    public func run(_ paths: [String], progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) throws
        -> Summary
    {
        let start = Date()
        let walk = CaptureWalk.files(paths, excluding: store.files)
        let files = walk.files
        try store.removePending()
        let known = try store.known()
        var summary = Summary()
        let outcomes = FolderRun.run(files, progress: progress) { path in self.index(path, known: known) }
        summary.files = walk.problems.map { ($0.path, .failed($0.why)) } + Array(zip(files, outcomes))
        // Gone: under a path given, in the store, not found now.
        let roots = paths.map(CaptureWalk.absolute)
        let found = Set(files)
        let gone = known.filter { _, k in
            !found.contains(k.path) && roots.contains { CaptureWalk.isUnder(k.path, $0) }
        }
        try store.remove(Array(gone.keys))
        summary.pruned = gone.count
        summary.seconds = Date().timeIntervalSince(start)
        return summary
    }

    func index(_ path: String, known: [Int64: Store.Known]) -> Outcome {
        if appLogs.isLog(path) { return .passedOver("an app log, read with its capture (--app-log-beside)") }
        var file: CaptureFile
        switch CaptureFile.look(path) {
        case .success(let f): file = f
        case .failure(let unread): return unread.outcome
        }
        // Its logs' names, sizes and times are part of what made its rows.
        let logs = appLogs.logs(for: path)
        let madeBy = logs.isEmpty ? fingerprint : fingerprint + "; app logs: " + appLogs.stamp(logs)
        // A file that could not be read is tried again.
        let old = known[file.id].flatMap { $0.failed ? nil : $0 }
        if let old, old.indexedBy == madeBy, old.size == file.size, old.modified == file.modified {
            return .unchanged
        }
        guard let sha = CaptureFile.sha256(of: path) else {
            return record(file, failure: "cannot read it: \(OS.describe(OS.errno))", madeBy)
        }
        file.sha256 = sha
        if let old, old.indexedBy == madeBy, old.sha256 == sha {
            do { try store.touch(file) } catch { return .failed(Store.describe(error)) }
            return .unchanged
        }
        do {
            try store.begin(file.id)
            var facts = try CaptureRows.read(
                file, configuration: configuration, archiveLimit: archiveLimit,
                appLog: try appLogs.merger(logs, capture: path), into: StoreSink(store))
            facts.indexedBy = madeBy
            try store.finish(facts)
            return .indexed(frames: facts.frames, diagnostics: facts.diagnostics)
        } catch let e as CaptureOpenError where e.isNotACapture {
            try? store.remove([file.id])
            return .passedOver("\(e)")
        } catch {
            return record(file, failure: "\(error)", madeBy)
        }
    }

    /// A file that could not be read is a row that says why, never an index that stops.
    private func record(_ file: CaptureFile, failure: String, _ madeBy: String) -> Outcome {
        var facts = CaptureFacts(file: file)
        facts.error = failure
        facts.indexedBy = madeBy
        do {
            try store.begin(file.id)
            try store.finish(facts)
        } catch {
            return .failed("\(failure); and the store refused its row: \(Store.describe(error))")
        }
        return .failed(failure)
    }
}
