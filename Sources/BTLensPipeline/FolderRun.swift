import BTLensCore
import Foundation
import Synchronization

/// A command over a folder of captures: files run in parallel on every core, and results come
/// back in file-name order, so the output is the same however the work was scheduled.
public enum FolderRun {
    /// The entries of a folder but its subfolders (hidden ones left out), sorted; nil when `path` is
    /// not a folder. A dangling link or a FIFO is listed, so that its run fails and names it
    /// (`notRegularFile`) instead of being skipped without a word or blocking on open.
    public static func files(_ path: String) -> [String]? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
            let names = try? FileManager.default.contentsOfDirectory(atPath: path)
        else { return nil }
        let base = path.hasSuffix("/") ? path : path + "/"
        return names.filter { !$0.hasPrefix(".") }.sorted().map { base + $0 }.filter {
            var dir: ObjCBool = false
            return !(FileManager.default.fileExists(atPath: $0, isDirectory: &dir) && dir.boolValue)
        }
    }

    /// Why a folder's entry is not read as a capture (a FIFO or device would block or never end), or
    /// nil for a regular file.
    public static func notRegularFile(_ path: String) -> String? {
        guard let st = OS.status(path: path) else { return OS.openFailure(path, OS.errno) }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFIFO: return "a FIFO, not a regular file: name it alone to read it"
        case S_IFSOCK: return "a socket, not a regular file"
        default: return "not a regular file"
        }
    }

    /// Shared by the worker threads, each setting its own index under the lock.
    private final class Results<Value: Sendable>: Sendable {
        private let state: Mutex<(values: [Value?], done: Int)>
        private let progress: @Sendable (Int, Int) -> Void

        init(count: Int, progress: @escaping @Sendable (Int, Int) -> Void) {
            state = Mutex((Array(repeating: nil, count: count), 0))
            self.progress = progress
        }

        func set(_ i: Int, _ value: Value) {
            state.withLock { state in
                state.values[i] = value
                state.done += 1
                progress(state.done, state.values.count)
            }
        }

        /// Every value, once `concurrentPerform` has returned (each index was set exactly once).
        var all: [Value] { state.withLock { $0.values.compactMap { $0 } } }
    }

    /// Runs `work` on each file (or each item naming one), in parallel; returns what each gave, in
    /// order. `progress` hears (files done, files) as each finishes.
    public static func run<Item: Sendable, Value: Sendable>(
        _ files: [Item], progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in },
        _ work: @escaping @Sendable (Item) -> Value
    ) -> [Value] {
        let results = Results<Value>(count: files.count, progress: progress)
        DispatchQueue.concurrentPerform(iterations: files.count) { i in results.set(i, work(files[i])) }
        return results.all
    }
}
