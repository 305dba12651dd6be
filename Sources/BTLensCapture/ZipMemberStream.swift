import BTLensCore
import CBTLensZlib
import Foundation

/// One member of a zip, inflated as it is read: 64 KiB at a time, never the whole member (the
/// logcat inside a bugreport, read by `--app-log bugreport`). The member is found from the
/// archive's own headers (`ZipMember`); stored (0) and deflated (8) members are read.
public final class ZipMemberStream {
    public let member: String
    private let fd: Int32
    private let located: ZipMember
    private let limit: Int64
    /// zlib keeps the stream's address: it lives at one place for the reader's life.
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
    private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
    private var position: UInt64 = 0
    private var written: Int64 = 0
    private var crc = crc32(0, nil, 0)
    private var ended = false
    private var streamEnded = false

    /// Opens `member` of the zip at `path`; at most `limit` bytes are inflated from it.
    public init(archive path: String, member: String, limit: Int64) throws(CaptureOpenError) {
        let fd = OS.open(path, O_RDONLY)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: OS.openFailure(path, OS.errno)) }
        do {
            located = try ZipMember.locate(member, fd: fd, limit: limit)
        } catch {
            OS.close(fd)
            throw .unsupported(format: "zip", detail: "the archive is damaged: \(error.detail)")
        }
        if let why = located.unreadable(member) {
            OS.close(fd)
            throw .unsupported(format: "zip", detail: why)
        }
        stream.initialize(to: z_stream())
        guard inflateInit2_(stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            OS.close(fd)
            throw .unsupported(format: "zip", detail: "zlib cannot start")
        }
        (self.member, self.fd, self.limit) = (member, fd, limit)
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        input.deallocate()
        output.deallocate()
        OS.close(fd)
    }

    /// The member's next bytes (at most 64 KiB), or nil at its end. Throws when it is damaged (its
    /// deflate data, its CRC-32), or would inflate to more than the limit.
    public func read() throws(CaptureOpenError) -> [UInt8]? {
        while !ended {
            if stream.pointee.avail_in == 0 {
                guard position < located.compressedSize else { return try end() }
                let want = Int(min(UInt64(input.count), located.compressedSize - position))
                let got = ZipMember.readFully(
                    fd, into: UnsafeMutableRawBufferPointer(rebasing: input[..<want]), at: located.dataOffset + position
                )
                guard got == want else {
                    throw damaged("it cannot be read at offset \(located.dataOffset + position)")
                }
                position += UInt64(got)
                if located.method == 0 { return try emit(UnsafeRawBufferPointer(rebasing: input[..<got])) }
                stream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
                stream.pointee.avail_in = UInt32(got)
            }
            stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
            stream.pointee.avail_out = UInt32(output.count)
            let status = inflate(stream, Z_NO_FLUSH)
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                let why = stream.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                throw damaged("its deflate data is damaged after \(written) bytes: \(why)")
            }
            let produced = output.count - Int(stream.pointee.avail_out)
            if status == Z_STREAM_END {
                // Bytes after the deflate stream's end are not the member's.
                (streamEnded, stream.pointee.avail_in, position) = (true, 0, located.compressedSize)
            }
            if produced > 0 { return try emit(UnsafeRawBufferPointer(rebasing: output[..<produced])) }
            if status == Z_STREAM_END { return try end() }
            if status == Z_BUF_ERROR && stream.pointee.avail_in > 0 {
                throw damaged("its deflate data stops making progress after \(written) bytes")
            }
        }
        return nil
    }

    private func emit(_ piece: UnsafeRawBufferPointer) throws(CaptureOpenError) -> [UInt8] {
        written += Int64(piece.count)
        guard written <= limit else {
            throw .unsupported(
                format: "zip", detail: "member \(member) inflates to more than \(limit) bytes: read no further")
        }
        crc = crc32(crc, piece.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(piece.count))
        return Array(piece)
    }

    /// The member's data is all read: a deflate stream must have ended, and the CRC-32 agree.
    private func end() throws(CaptureOpenError) -> [UInt8]? {
        ended = true
        if located.method == 8 && !streamEnded {
            throw damaged("its \(located.compressedSize) bytes of deflate data end before the stream does")
        }
        guard crc == UInt(located.checksum) else {
            throw damaged(
                "its CRC-32 is \(Hex.value(UInt32(truncatingIfNeeded: crc), width: 8)), the archive says \(Hex.value(located.checksum, width: 8))"
            )
        }
        return nil
    }

    private func damaged(_ why: String) -> CaptureOpenError {
        ended = true
        return .unsupported(format: "zip", detail: "member \(member) is damaged: \(why)")
    }
}

extension ZipMemberStream {
    /// The main text of the bugreport .zip at `path`: the member `main_entry.txt` names (as
    /// dumpstate writes it), else the `bugreport-*.txt` nearest the archive's root.
    public static func bugreportText(in path: String, limit: Int64) throws(CaptureOpenError) -> ZipMemberStream {
        if let entry = try? ZipMemberStream(archive: path, member: "main_entry.txt", limit: 4096),
            let bytes = try? entry.read()
        {
            let name = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !name.isEmpty, let main = try? ZipMemberStream(archive: path, member: name, limit: limit) { return main }
        }
        let texts = try BugreportArchive(path: path).candidates.filter {
            let name = $0.split(separator: "/").last ?? ""
            return name.hasPrefix("bugreport") && name.hasSuffix(".txt")
        }
        guard let best = texts.min(by: { ($0.split(separator: "/").count, $0) < ($1.split(separator: "/").count, $1) })
        else {
            throw .unsupported(format: "zip", detail: "it holds no bugreport text (bugreport-*.txt)")
        }
        return try ZipMemberStream(archive: path, member: best, limit: limit)
    }
}
