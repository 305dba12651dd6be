import Foundation
import ZIPFoundation

/// An Android bugreport .zip: finds the snoop logs and the summary text inside, through ZIPFoundation.
public struct BugreportArchive {
    static let magic: [UInt8] = [0x50, 0x4b, 0x03, 0x04]

    /// Members that may hold Bluetooth traffic, best first.
    public let candidates: [String]
    private let archive: Archive
    private let path: String

    public init(path: String) throws(CaptureOpenError) {
        self.path = path
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw .unsupported(format: "zip", detail: "the archive cannot be read: \(error)")
        }
        candidates = Self.rank(archive.map(\.path))
    }

    /// `FS/data/misc/bluetooth/logs/btsnoop_hci.log`, then its `.filtered` and `.last`, btsnooz files,
    /// then bugreport text (which holds the btsnooz summary).
    static func rank(_ paths: [String]) -> [String] {
        func score(_ p: String) -> Int? {
            let name = p.split(separator: "/").last.map(String.init) ?? p
            switch name {
            case "btsnoop_hci.log": return 0
            case "btsnoop_hci.log.filtered": return 1
            case "btsnoop_hci.log.last": return 2
            case "btsnoop_hci.log.filtered.last": return 3
            default:
                if name.hasPrefix("btsnooz_hci.log") { return 4 }
                if name.hasPrefix("btsnoop_hci") { return 5 }
                if name.hasPrefix("bugreport") && name.hasSuffix(".txt") { return 6 }
                return nil
            }
        }
        return paths.compactMap { p in score(p).map { ($0, p) } }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.1)
    }

    /// Extracts `member` (or the best candidate) to a temporary file and returns its path and name.
    public func extract(member: String?) throws(CaptureOpenError) -> (path: String, member: String) {
        guard let name = member ?? candidates.first else {
            throw .unsupported(format: "zip", detail: "no Bluetooth snoop log or bugreport text inside (looked for btsnoop_hci.log*, btsnooz_hci.log*, bugreport*.txt)")
        }
        guard let entry = archive[name] else {
            throw .unsupported(format: "zip", detail: "no member \(name) (candidates: \(candidates.joined(separator: ", ")))")
        }
        let target = FileManager.default.temporaryDirectory
            .appendingPathComponent("btlens-\(getpid())-\(UUID().uuidString)")
        do {
            _ = try archive.extract(entry, to: target)
        } catch {
            throw .unsupported(format: "zip", detail: "cannot extract \(name): \(error)")
        }
        return (target.path, name)
    }
}
