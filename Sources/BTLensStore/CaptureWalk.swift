import BTLensCore
import Crypto
import Foundation

/// The files `index` and `export --dataset` read: the named files, and every file under the named
/// folders (hidden ones and links to folders left out, so a link loop ends), sorted.
public enum CaptureWalk {
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    public static func files(_ paths: [String]) throws -> [String] {
        var out: [String] = []
        for path in paths.map(absolute) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw Missing(description: "\(path): no such file or folder")
            }
            guard isDirectory.boolValue else {
                out.append(path)
                continue
            }
            let url = URL(fileURLWithPath: path, isDirectory: true)
            guard
                let walk = FileManager.default.enumerator(
                    at: url, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles])
            else { continue }
            for case let file as URL in walk {
                let dir = (try? file.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
                if !dir { out.append(file.standardizedFileURL.path) }
            }
        }
        return Array(Set(out)).sorted()
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
    /// The file's id and what tells whether it changed; nil when it cannot be looked at.
    public static func look(_ path: String) -> CaptureFile? {
        guard let st = OS.status(path: path) else { return nil }
        return CaptureFile(
            path: path, id: id(of: path), size: Int64(st.st_size), modified: OS.modifiedNanoseconds(st))
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
