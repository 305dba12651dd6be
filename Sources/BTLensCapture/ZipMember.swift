import BTLensCore
import CBTLensZlib
import Foundation

/// A member's stored bytes, found from the archive's own headers, and inflated with zlib within
/// bounds (ZIPFoundation's inflater read on past a member's compressed size and looped for ever
/// when the deflate stream did not end before the file did: a fuzzed 361-byte zip hung `btlens
/// stats`). The central directory is `ZipDirectory`; the local file header is APPNOTE.TXT 4.3.7.
struct ZipMember {
    var method: UInt16
    /// General purpose bit flags (APPNOTE.TXT 4.4.4): bit 0, encrypted.
    var flags: UInt16
    var checksum: UInt32
    var compressedSize: UInt64
    /// What the archive declares; nil where it does not say (a data descriptor not read).
    var uncompressedSize: UInt64?
    var dataOffset: UInt64

    struct Damaged: Error { var detail: String }

    /// The member named `name` in the archive open at `fd`, or why it cannot be found. In an archive
    /// without a central directory (cut short), it is looked for by its local header
    /// (`ZipLocalScan`, each member inflated to at most `limit` bytes to find where it ends).
    static func locate(_ name: String, fd: Int32, limit: Int64) throws(Damaged) -> ZipMember {
        let size = UInt64(max(OS.lseek(fd, 0, SEEK_END), 0))
        let directory: ZipDirectory
        do { directory = try ZipDirectory.read(fd, size: size) } catch {
            switch error {
            case .noEndRecord:
                guard let found = ZipLocalScan.members(fd: fd, limit: limit).first(where: { $0.name == name }) else {
                    throw Damaged(detail: "it has no end of central directory record (is it cut short?)")
                }
                return found.member
            case .damaged(let detail), .refused(let detail): throw Damaged(detail: detail)
            }
        }
        guard let entry = directory.entries.first(where: { $0.name == name }) else {
            throw Damaged(detail: "member \(name) is not in its central directory")
        }
        let local = try read(fd, at: entry.headerOffset, count: 30, size: size, "member \(name)'s local header")
        guard le(local, 0, 4) == 0x0403_4b50 else {
            throw Damaged(detail: "member \(name) has no local header at offset \(entry.headerOffset)")
        }
        // The header is within the file: these sums are far from UInt64's end.
        let dataOffset = entry.headerOffset + 30 + le(local, 26, 2) + le(local, 28, 2)
        guard dataOffset <= size, entry.compressedSize <= size - dataOffset else {
            throw Damaged(
                detail:
                    "member \(name)'s \(entry.compressedSize) bytes at offset \(dataOffset) run past the end of the archive (\(size) bytes)"
            )
        }
        return ZipMember(
            method: entry.method, flags: entry.flags, checksum: entry.checksum, compressedSize: entry.compressedSize,
            uncompressedSize: entry.uncompressedSize, dataOffset: dataOffset)
    }

    /// Why btlens cannot read the member, or nil: it reads stored (0) and deflated (8) members, not
    /// encrypted ones.
    func unreadable(_ name: String) -> String? {
        if flags & 1 != 0 {
            return "member \(name) is encrypted: btlens does not decrypt zips; unzip it with its password first"
        }
        // Method 99 is WinZip's AES encryption (AE-1, AE-2), whatever bit 0 says.
        if method == 99 {
            return
                "member \(name) is AES-encrypted (WinZip AE-x, method 99): btlens does not decrypt zips; unzip it with its password first"
        }
        guard method == 0 || method == 8 else {
            return
                "member \(name) is compressed with method \(method); btlens reads stored (0) and deflated (8) members"
        }
        return nil
    }

    enum Failure: Error {
        case unsupported(String)
        case tooLarge
        case output(CaptureOpenError)
    }

    /// Hands the member's bytes to `sink` in pieces of at most 64 KiB, at most `limit` of them:
    /// stored (method 0) as they are, deflated (method 8) through zlib. A damaged member is read as
    /// far as it inflates, and what is wrong is returned: a deflate stream that does not end within
    /// the member, or a CRC-32 other than the central directory's.
    func extract(
        from fd: Int32, name: String, limit: Int64,
        into sink: (UnsafeRawBufferPointer) throws(CaptureOpenError) -> Void
    ) throws(Failure) -> String? {
        if let why = unreadable(name) { throw .unsupported(why) }
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .unsupported("zlib cannot start")
        }
        defer {
            inflateEnd(&stream)
            input.deallocate()
            output.deallocate()
        }
        var (position, written, crc, status): (UInt64, Int64, UInt, Int32) = (0, 0, crc32(0, nil, 0), Z_OK)
        func emit(_ piece: UnsafeRawBufferPointer) throws(Failure) {
            written += Int64(piece.count)
            guard written <= limit else { throw .tooLarge }
            crc = crc32(crc, piece.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(piece.count))
            do { try sink(piece) } catch { throw .output(error) }
        }
        while position < compressedSize && status != Z_STREAM_END {
            let want = Int(min(UInt64(input.count), compressedSize - position))
            let got = Self.readFully(
                fd, into: UnsafeMutableRawBufferPointer(rebasing: input[..<want]), at: dataOffset + position)
            guard got == want else {
                return "it cannot be read at offset \(dataOffset + position): \(OS.describe(OS.errno))"
            }
            position += UInt64(got)
            if method == 0 {
                try emit(UnsafeRawBufferPointer(rebasing: input[..<got]))
                continue
            }
            stream.next_in = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
            stream.avail_in = UInt32(got)
            repeat {
                stream.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
                stream.avail_out = UInt32(output.count)
                status = inflate(&stream, Z_NO_FLUSH)
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    return
                        "its deflate data is damaged at byte \(stream.total_in) of \(compressedSize) (\(written) bytes inflated): \(stream.msg.map { String(cString: $0) } ?? "zlib status \(status)")"
                }
                try emit(UnsafeRawBufferPointer(rebasing: output[..<(output.count - Int(stream.avail_out))]))
            } while stream.avail_out == 0 && status == Z_OK
        }
        if method == 8 && status != Z_STREAM_END {
            return "its \(compressedSize) bytes of deflate data end before the stream does, after \(written) bytes"
        }
        guard crc == UInt(checksum) else {
            return
                "its CRC-32 is \(Hex.value(UInt32(truncatingIfNeeded: crc), width: 8)), the archive says \(Hex.value(checksum, width: 8))"
        }
        if let uncompressedSize, uncompressedSize != UInt64(written) {
            return "it inflates to \(written) bytes, the archive says \(uncompressedSize)"
        }
        return nil
    }

    /// `count` bytes at `offset`, all of them inside the file.
    static func read(_ fd: Int32, at offset: UInt64, count: UInt64, size: UInt64, _ what: String) throws(Damaged)
        -> [UInt8]
    {
        guard offset <= size, count <= size - offset else {
            throw Damaged(
                detail: "\(what) (\(count) bytes at offset \(offset)) runs past the end of the archive (\(size) bytes)")
        }
        var bytes = [UInt8](repeating: 0, count: Int(count))
        let done = bytes.withUnsafeMutableBytes { readFully(fd, into: $0, at: offset) }
        guard done == bytes.count else {
            throw Damaged(detail: "\(what) cannot be read: \(OS.describe(OS.errno))")
        }
        return bytes
    }

    /// Fills `buffer` from `offset` on; the count read (short at the end of the file or on an error).
    static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let n = OS.pread(fd, base + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 && OS.errno == EINTR { continue }
            guard n > 0 else { break }
            done += n
        }
        return done
    }

    /// A little-endian unsigned value of `width` bytes at `at` (the caller has checked the bounds).
    static func le<C: RandomAccessCollection>(_ b: C, _ at: Int, _ width: Int) -> UInt64
    where C.Element == UInt8, C.Index == Int {
        (0..<width).reversed().reduce(0) { $0 << 8 | UInt64(b[b.startIndex + at + $1]) }
    }
}
