import BTLensCore
import Foundation

/// An Android bugreport .zip: finds the snoop logs and the summary text inside. The central
/// directory is read by btlens itself (`ZipDirectory`), every value checked, never by a library
/// that could trap on one.
public struct BugreportArchive {
    static let magic: [UInt8] = [0x50, 0x4b, 0x03, 0x04]
    /// An empty zip is its end record alone (APPNOTE.TXT 4.3.16).
    static let emptyMagic: [UInt8] = [0x50, 0x4b, 0x05, 0x06]

    /// Whether `head` begins as a zip does: a member's local header, or the end record of an empty one.
    static func isZipHead<C: Collection>(_ head: C) -> Bool where C.Element == UInt8 {
        head.starts(with: magic) || head.starts(with: emptyMagic)
    }
    /// Names shown in a message before the rest are counted: a zip may hold thousands.
    static let namesShown = 5

    /// Members that may hold Bluetooth traffic, best first.
    public let candidates: [String]
    /// Every member's name, in the archive's order.
    let members: [String]
    let path: String
    /// What is wrong with the archive as a whole (its members are read all the same).
    public let damage: String?

    /// `limit`: the most bytes a member may inflate to (also while its end is looked for).
    public init(path: String, limit: Int64 = 256 << 20) throws(CaptureOpenError) {
        self.path = path
        let fd = OS.open(path, O_RDONLY)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: OS.describe(OS.errno)) }
        defer { OS.close(fd) }
        do {
            members = try ZipDirectory.read(fd, size: UInt64(max(OS.lseek(fd, 0, SEEK_END), 0))).entries.map(\.name)
            damage = nil
        } catch {
            switch error {
            case .noEndRecord:
                // Cut short (a transfer that broke off): the members whose local headers are there.
                members = ZipLocalScan.members(fd: fd, limit: limit).map(\.name)
                guard !members.isEmpty else {
                    throw .unsupported(
                        format: "zip",
                        detail: "the archive is damaged: it has no end of central directory record (is it cut short?)")
                }
                damage =
                    "no central directory, cut short? \(Plural.of(members.count, "member")) read from their local headers"
            case .damaged(let detail): throw .unsupported(format: "zip", detail: "the archive is damaged: \(detail)")
            case .refused(let detail): throw .unsupported(format: "zip", detail: detail)
            }
        }
        guard !members.isEmpty else {
            throw .unsupported(format: "zip", detail: "it is an empty zip: it holds no members")
        }
        candidates = Self.rank(members)
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
            // A bugreport zipped once more (as it is mailed or uploaded) holds only the zip.
            let zips = members.filter { $0.lowercased().hasSuffix(".zip") }
            throw .unsupported(
                format: "zip",
                detail:
                    "no Bluetooth snoop log or bugreport text inside (looked for btsnoop_hci.log*, btsnooz_hci.log*, bugreport*.txt)"
                    + (zips.isEmpty ? "" : "; it holds zips (\(Self.list(zips))): unzip it and read the zip inside"))
        }
        guard members.contains(name) else {
            // Every member may be asked for: the candidates first, then the rest in the archive's order.
            let ranked = Set(candidates)
            let named = candidates + members.filter { !ranked.contains($0) }
            throw .unsupported(format: "zip", detail: "no member \(name) (members: \(Self.list(named)))")
        }
        let tooLarge = CaptureOpenError.unsupported(
            format: "zip",
            detail:
                "member \(name) inflates to more than \(limit) bytes (--limit archive-bytes=\(limit)): not read; raise the limit to read it"
        )
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
        var head: [UInt8] = [0, 0, 0, 0]
        if head.withUnsafeMutableBytes({ OS.pread(fd, $0.baseAddress, 4, 0) }) == 4, Self.isZipHead(head) {
            throw .unsupported(
                format: "zip", detail: "member \(name) is itself a zip: unzip the archive and read the zip inside")
        }
        OS.lseek(fd, 0, SEEK_SET)
        return (file, name, damage)
    }
}
