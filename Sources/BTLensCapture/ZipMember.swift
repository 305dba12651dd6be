import BTLensCore
import CBTLensZlib
import Foundation

/// A member's stored bytes, found from the archive's own headers, and inflated with zlib within
/// bounds. ZIPFoundation lists the members, but its inflater reads on past a member's compressed
/// size and loops for ever when the deflate stream does not end before the file does (a fuzzed
/// 361-byte zip hung `btlens stats`). Layouts: APPNOTE.TXT 4.3.7 (local file header), 4.3.12
/// (central directory header), 4.3.14–4.3.16 (ZIP64 and end of central directory records), 4.5.3
/// (ZIP64 extended information).
struct ZipMember {
    var method: UInt16
    var checksum: UInt32
    var compressedSize: UInt64
    var dataOffset: UInt64

    /// The most central directory btlens reads: 10,000 members with long names fit in 2 MiB.
    static let centralDirectoryLimit: UInt64 = 16 << 20

    struct Damaged: Error { var detail: String }

    /// The member named `name` in the archive open at `fd`, or why it cannot be found. In an archive
    /// without a central directory (cut short), it is looked for by its local header
    /// (`ZipLocalScan`, each member inflated to at most `limit` bytes to find where it ends).
    static func locate(_ name: String, fd: Int32, limit: Int64) throws(Damaged) -> ZipMember {
        let size = UInt64(max(OS.lseek(fd, 0, SEEK_END), 0))
        let directoryOffset: UInt64
        let directorySize: UInt64
        do { (directoryOffset, directorySize) = try centralDirectory(fd, size: size) } catch {
            guard let found = ZipLocalScan.members(fd: fd, limit: limit).first(where: { $0.name == name }) else {
                throw error
            }
            return found.member
        }
        let directory = try read(fd, at: directoryOffset, count: directorySize, size: size, "the central directory")
        let wanted = Array(name.utf8)
        var at = 0
        while at + 46 <= directory.count, le(directory, at, 4) == 0x0201_4b50 {
            let nameLength = Int(le(directory, at + 28, 2))
            let extraLength = Int(le(directory, at + 30, 2))
            let next = at + 46 + nameLength + extraLength + Int(le(directory, at + 32, 2))
            guard next <= directory.count else { break }
            if Array(directory[at + 46..<at + 46 + nameLength]) == wanted {
                var member = ZipMember(
                    method: UInt16(le(directory, at + 10, 2)), checksum: UInt32(le(directory, at + 16, 4)),
                    compressedSize: le(directory, at + 20, 4), dataOffset: 0)
                var headerOffset = le(directory, at + 42, 4)
                zip64(
                    directory[at + 46 + nameLength..<at + 46 + nameLength + extraLength],
                    uncompressed: le(directory, at + 24, 4), &member.compressedSize, &headerOffset)
                let local = try read(fd, at: headerOffset, count: 30, size: size, "member \(name)'s local header")
                guard le(local, 0, 4) == 0x0403_4b50 else {
                    throw Damaged(detail: "member \(name) has no local header at offset \(headerOffset)")
                }
                member.dataOffset = headerOffset + 30 + le(local, 26, 2) + le(local, 28, 2)
                guard member.dataOffset.addingReportingOverflow(member.compressedSize).partialValue <= size,
                    member.compressedSize <= size
                else {
                    throw Damaged(
                        detail:
                            "member \(name)'s \(member.compressedSize) bytes at offset \(member.dataOffset) run past the end of the archive (\(size) bytes)"
                    )
                }
                return member
            }
            at = next
        }
        throw Damaged(detail: "member \(name) is not in its central directory")
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
        guard method == 0 || method == 8 else {
            throw .unsupported(
                "member \(name) is compressed with method \(method); btlens reads stored (0) and deflated (8) members")
        }
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
                        "its deflate data is damaged after \(written) bytes: \(stream.msg.map { String(cString: $0) } ?? "zlib status \(status)")"
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
        return nil
    }

    /// The central directory's offset and size from the end record, or the ZIP64 one it defers to.
    private static func centralDirectory(_ fd: Int32, size: UInt64) throws(Damaged) -> (UInt64, UInt64) {
        let tailStart = size > 65_557 ? size - 65_557 : 0
        let tail = try read(fd, at: tailStart, count: size - tailStart, size: size, "the end record")
        guard
            let end = stride(from: tail.count - 22, through: 0, by: -1).first(where: { le(tail, $0, 4) == 0x0605_4b50 })
        else {
            throw Damaged(detail: "it has no end of central directory record (is it cut short?)")
        }
        var (offset, length) = (le(tail, end + 16, 4), le(tail, end + 12, 4))
        if offset == 0xffff_ffff || length == 0xffff_ffff, end >= 20, le(tail, end - 20, 4) == 0x0706_4b50 {
            let record = try read(fd, at: le(tail, end - 12, 8), count: 56, size: size, "the ZIP64 end record")
            guard le(record, 0, 4) == 0x0606_4b50 else { throw Damaged(detail: "its ZIP64 end record is missing") }
            (offset, length) = (le(record, 48, 8), le(record, 40, 8))
        }
        guard length <= centralDirectoryLimit else {
            throw Damaged(
                detail:
                    "its central directory of \(length) bytes is larger than btlens reads (\(centralDirectoryLimit >> 20) MiB)"
            )
        }
        return (offset, length)
    }

    /// The ZIP64 extended information (header 0x0001) holds, as 8 bytes each, the values whose 4-byte
    /// fields are all ones, in this order: uncompressed size, compressed size, local header offset.
    private static func zip64(
        _ extra: ArraySlice<UInt8>, uncompressed: UInt64, _ compressed: inout UInt64, _ offset: inout UInt64
    ) {
        let bytes = Array(extra)
        var at = 0
        while at + 4 <= bytes.count, le(bytes, at, 2) != 1 { at += 4 + Int(le(bytes, at + 2, 2)) }
        guard at + 4 <= bytes.count else { return }
        let end = min(at + 4 + Int(le(bytes, at + 2, 2)), bytes.count)
        var field = at + 4
        if uncompressed == 0xffff_ffff { field += 8 }
        if compressed == 0xffff_ffff, field + 8 <= end {
            compressed = le(bytes, field, 8)
            field += 8
        }
        if offset == 0xffff_ffff, field + 8 <= end { offset = le(bytes, field, 8) }
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
