import BTLensCore
import Foundation
import ZIPFoundation

/// An Android bugreport .zip: finds the snoop logs and the summary text inside, through ZIPFoundation.
public struct BugreportArchive {
    static let magic: [UInt8] = [0x50, 0x4b, 0x03, 0x04]
    /// Names shown in a message before the rest are counted: a zip may hold thousands.
    static let namesShown = 5

    /// Members that may hold Bluetooth traffic, best first.
    public let candidates: [String]
    /// The central directory's listing; nil for an archive cut short, read by its local headers.
    let archive: Archive?
    let path: String
    /// What is wrong with the archive as a whole (its members are read all the same).
    public let damage: String?

    /// `limit`: the most bytes a member may inflate to (also while its end is looked for).
    public init(path: String, limit: Int64 = 256 << 20) throws(CaptureOpenError) {
        self.path = path
        let opened: Archive
        do {
            opened = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch Archive.ArchiveError.missingEndOfCentralDirectoryRecord {
            // Cut short (a transfer that broke off): the members whose local headers are there.
            let found = Self.localMembers(path, limit: limit)
            guard !found.isEmpty else {
                throw .unsupported(
                    format: "zip",
                    detail: "the archive is damaged: it has no end of central directory record (is it cut short?)")
            }
            archive = nil
            damage = "no central directory, cut short? \(found.count) members read from their local headers"
            candidates = Self.rank(found)
            return
        } catch {
            throw .unsupported(format: "zip", detail: "the archive cannot be read: \(error)")
        }
        let paths = opened.map(\.path)
        // ZIPFoundation stops listing at the first central directory entry it cannot read.
        if let declared = Self.declaredMemberCount(path), paths.count < declared {
            throw .unsupported(
                format: "zip",
                detail:
                    "the archive is damaged: its central directory lists \(declared) members, only \(paths.count) can be read"
            )
        }
        archive = opened
        damage = nil
        candidates = Self.rank(paths)
    }

    /// A temporary file whose name is gone before a signal can end btlens: made and unlinked with
    /// the signals that end it held back, so that nothing is left behind.
    private static func anonymousFile() -> Int32 {
        OS.withEndingSignalsBlocked {
            var template = Array((NSTemporaryDirectory() + "/btlens-XXXXXX").utf8CString)
            let fd = OS.mkstemp(&template)
            if fd >= 0 { OS.unlink(String(cString: template)) }
            return fd
        }
    }

    /// The names of the members whose local headers a zip without a central directory holds.
    private static func localMembers(_ path: String, limit: Int64) -> [String] {
        let fd = OS.open(path, O_RDONLY)
        guard fd >= 0 else { return [] }
        defer { OS.close(fd) }
        return ZipLocalScan.members(fd: fd, limit: limit).map(\.name)
    }

    /// The member count of the end of central directory record (APPNOTE 4.3.16), which sits in the
    /// last 65,557 bytes; nil when there is none or it defers to ZIP64 (0xffff).
    static func declaredMemberCount(_ path: String) -> Int? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        guard let size = try? file.seekToEnd(), size >= 22 else { return nil }
        let start = size > 65_557 ? size - 65_557 : 0
        guard (try? file.seek(toOffset: start)) != nil, let tail = try? file.readToEnd().map(Array.init),
            tail.count >= 22
        else { return nil }
        for at in stride(from: tail.count - 22, through: 0, by: -1)
        where tail[at] == 0x50 && tail[at + 1] == 0x4b && tail[at + 2] == 0x05 && tail[at + 3] == 0x06 {
            let count = Int(tail[at + 10]) | Int(tail[at + 11]) << 8
            return count == 0xffff ? nil : count
        }
        return nil
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

    /// A few names, then how many more: `a, b, c, d, e and 9995 more`.
    public static func list(_ names: [String]) -> String {
        let shown = names.prefix(namesShown).joined(separator: ", ")
        return names.count > namesShown ? "\(shown) and \(names.count - namesShown) more" : shown
    }

    /// Inflates `member` (or the best candidate), at most `limit` bytes, into a temporary file that
    /// has no name from the start: nothing is left behind however btlens ends (even by a signal).
    /// A damaged member is read as far as it inflates; `damage` says what is wrong with it.
    public func extract(member: String?, limit: Int64) throws(CaptureOpenError) -> (
        file: FileSource, member: String, damage: String?
    ) {
        guard let name = member ?? candidates.first else {
            throw .unsupported(
                format: "zip",
                detail:
                    "no Bluetooth snoop log or bugreport text inside (looked for btsnoop_hci.log*, btsnooz_hci.log*, bugreport*.txt)"
            )
        }
        let listed = archive.map { $0[name] != nil } ?? candidates.contains(name)
        guard listed else {
            throw .unsupported(format: "zip", detail: "no member \(name) (candidates: \(Self.list(candidates)))")
        }
        let tooLarge = CaptureOpenError.unsupported(
            format: "zip",
            detail:
                "member \(name) inflates to more than \(limit) bytes (--limit archive-bytes=\(limit)): not read; raise the limit to read it"
        )
        // The size the archive declares may be a lie: the inflated bytes are counted as well.
        if let entry = archive?[name], entry.uncompressedSize > UInt64(limit) { throw tooLarge }
        let archiveFile = OS.open(path, O_RDONLY)
        guard archiveFile >= 0 else { throw .cannotOpen(path: path, reason: OS.openFailure(path, OS.errno)) }
        defer { OS.close(archiveFile) }
        let located: ZipMember
        do { located = try ZipMember.locate(name, fd: archiveFile, limit: limit) } catch {
            throw .unsupported(format: "zip", detail: "the archive is damaged: \(error.detail)")
        }
        let fd = Self.anonymousFile()
        guard fd >= 0 else {
            throw .cannotOpen(
                path: NSTemporaryDirectory(),
                reason: "cannot make a temporary file: \(OS.describe(OS.errno))")
        }
        let file = FileSource(descriptor: fd, name: "\(path) member \(name)")
        let damage: String?
        do {
            damage = try located.extract(from: archiveFile, name: name, limit: limit) {
                (piece: UnsafeRawBufferPointer) throws(CaptureOpenError) in
                guard let base = piece.baseAddress else { return }
                var at = 0
                while at < piece.count {
                    let n = OS.write(fd, base + at, piece.count - at)
                    if n < 0 && OS.errno == EINTR { continue }
                    guard n > 0 else {
                        throw .cannotOpen(path: "a temporary file", reason: OS.describe(OS.errno))
                    }
                    at += n
                }
            }
        } catch {
            switch error {
            case .tooLarge: throw tooLarge
            case .output(let failure): throw failure
            case .unsupported(let detail): throw .unsupported(format: "zip", detail: detail)
            }
        }
        OS.lseek(fd, 0, SEEK_SET)
        return (file, name, damage)
    }
}
