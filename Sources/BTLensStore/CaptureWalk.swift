import BTLensCore
import Crypto
import Foundation

/// The files `index` and `export --dataset` read: the named files, and every file under the named
/// folders (a named link to a folder is followed; links to folders under it are not, so a link
/// loop ends; hidden files are left out), sorted. What cannot be looked at is said, not skipped.
public enum CaptureWalk {
    public struct Walk: Sendable {
        public var files: [String] = []
        /// Paths that are not there, and folders that cannot be read, with why.
        public var problems: [(path: String, why: String)] = []
    }

    /// `excluding`: files never read as captures (the store's own).
    public static func files(_ paths: [String], excluding: Set<String> = []) -> Walk {
        var walk = Walk()
        var found: Set<String> = []
        for path in paths.map(absolute) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                walk.problems.append((path, "no such file or folder"))
                continue
            }
            guard isDirectory.boolValue else {
                found.insert(path)
                continue
            }
            // A named link to a folder is walked; those under it are not.
            walkFolder(path, into: &found, &walk.problems)
        }
        walk.files = found.subtracting(excluding).sorted()
        return walk
    }

    /// Every file under `folder`, each looked at once (`lstat`): folders walked into, links to
    /// folders not, hidden names left out.
    private static func walkFolder(
        _ folder: String, into found: inout Set<String>, _ problems: inout [(path: String, why: String)]
    ) {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder) } catch {
            return problems.append((folder, "cannot be read: \(reason(error))"))
        }
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = base + name
            guard let st = OS.linkStatus(path: path) else { continue }
            if st.st_mode & S_IFMT == S_IFDIR {
                walkFolder(path, into: &found, &problems)
            } else if st.st_mode & S_IFMT == S_IFLNK,
                OS.status(path: path).map({ $0.st_mode & S_IFMT == S_IFDIR }) ?? false
            {
                continue
            } else {
                found.insert(path)
            }
        }
    }

    /// The file's status, or why it is not read as a capture (a FIFO or device would block or
    /// never end).
    static func regularFile(_ path: String) -> Result<stat, Unread> {
        guard let st = OS.status(path: path) else { return .failure(.cannotLook(OS.describe(OS.errno))) }
        return st.st_mode & S_IFMT == S_IFREG ? .success(st) : .failure(.notAFile)
    }

    enum Unread: Error {
        case cannotLook(String)
        case notAFile
        /// A log beside a capture (`--app-log-beside`): read with it.
        case appLog

        var outcome: StoreIndexer.Outcome {
            switch self {
            case .cannotLook(let why): return .failed("cannot look at it: \(why)")
            case .notAFile: return .passedOver("not a regular file (a FIFO, socket or device): only files are indexed")
            case .appLog: return .passedOver("an app log, read with its capture (--app-log-beside)")
            }
        }
    }

    /// A Foundation file error's cause in the C library's words ("Not a directory").
    static func reason(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let code = underlying.map({ Int32($0.code) }), underlying?.domain == NSPOSIXErrorDomain {
            return OS.describe(code)
        }
        return (error as NSError).localizedDescription
    }

    /// `path` from the root, `.` and `..` resolved (links are kept: the id follows the name given).
    public static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: full).standardizedFileURL.path
    }

    /// Whether `file` is `root` or lies under it.
    static func isUnder(_ file: String, _ root: String) -> Bool {
        file == root || file.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }
}

extension CaptureFile {
    /// The file's id and what tells whether it changed, or why it is not read.
    static func look(_ path: String) -> Result<CaptureFile, CaptureWalk.Unread> {
        CaptureWalk.regularFile(path).map { st in
            CaptureFile(path: path, id: id(of: path), size: Int64(st.st_size), modified: OS.modifiedNanoseconds(st))
        }
    }

    /// 63 bits of the SHA-256 of the path: the same in the store and the dataset, whoever made them.
    static func id(of path: String) -> Int64 {
        let digest = Array(SHA256.hash(data: Data(path.utf8)))
        let bits = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int64(bitPattern: bits & UInt64(Int64.max))
    }

    /// The SHA-256 of the file's bytes, read 1 MiB at a time; nil when it cannot be read.
    static func sha256(of path: String) -> String? {
        let fd = OS.open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { OS.close(fd) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { OS.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && OS.errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            buffer.withUnsafeBytes { hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
        }
        return Hex.string(Array(hash.finalize()))
    }
}
