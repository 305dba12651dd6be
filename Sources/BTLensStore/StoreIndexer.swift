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
    public let reading: CaptureReading

    public init(store: Store, reading: CaptureReading) {
        self.store = store
        self.reading = reading
    }

    /// What became of one file.
    public enum Outcome: Sendable, Equatable {
        case indexed(frames: Int, diagnostics: Int)
        case unchanged
        /// Its row says why it could not be read.
        case failed(String)
        /// Not a capture (a README, a log): not in the store.
        case passedOver(String)
        /// A path named that is not there, or a folder that cannot be read: no row, said.
        case unreachable(String)
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
        summary.files = walk.problems.map { ($0.path, .unreachable($0.why)) } + Array(zip(files, outcomes))
        // Gone: under a path given, in the store, not found now; but not under a folder that is
        // there and could not be read, whose files may be there too.
        let roots = paths.map(CaptureWalk.absolute)
        let unread = walk.problems.map(\.path).filter { FileManager.default.fileExists(atPath: $0) }
        let found = Set(files)
        let gone = known.filter { _, k in
            !found.contains(k.path) && roots.contains { CaptureWalk.isUnder(k.path, $0) }
                && !unread.contains { CaptureWalk.isUnder(k.path, $0) }
        }
        try store.remove(Array(gone.keys))
        summary.pruned = gone.count
        summary.seconds = Date().timeIntervalSince(start)
        return summary
    }

    func index(_ path: String, known: [Int64: Store.Known]) -> Outcome {
        var found: CaptureReading.Found
        switch reading.look(path) {
        case .success(let f): found = f
        case .failure(let unread): return unread.outcome
        }
        // A file that could not be read is tried again.
        let old = known[found.file.id].flatMap { $0.failed ? nil : $0 }
        if let old, old.indexedBy == found.madeBy, old.size == found.file.size, old.modified == found.file.modified {
            return .unchanged
        }
        guard let sha = CaptureFile.sha256(of: path) else {
            return record(reading.failed(found, "cannot read it: \(OS.describe(OS.errno))"))
        }
        found.file.sha256 = sha
        if let old, old.indexedBy == found.madeBy, old.sha256 == sha {
            do { try store.touch(found.file) } catch { return .failed(Store.describe(error)) }
            return .unchanged
        }
        do {
            try store.begin(found.file.id)
            let facts = try reading.read(found, into: StoreSink(store))
            try store.finish(facts)
            return .indexed(frames: facts.frames, diagnostics: facts.diagnostics)
        } catch let e as CaptureOpenError where e.isNotACapture {
            try? store.remove([found.file.id])
            return .passedOver("\(e)")
        } catch {
            return record(reading.failed(found, "\(error)"))
        }
    }

    /// A file that could not be read is a row that says why, never an index that stops.
    private func record(_ facts: CaptureFacts) -> Outcome {
        let why = facts.error ?? ""
        do {
            try store.begin(facts.file.id)
            try store.finish(facts)
        } catch {
            return .failed("\(why); and the store refused its row: \(Store.describe(error))")
        }
        return .failed(why)
    }
}
