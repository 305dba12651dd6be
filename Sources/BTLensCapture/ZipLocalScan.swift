import BTLensCore
import CBTLensZlib

/// The members of a zip that lost its central directory (a bugreport cut short by a dropped
/// transfer), found by walking the local file headers from the start (APPNOTE.TXT 4.3.7, and 4.3.9
/// for the data descriptor that follows a member whose header leaves its sizes at 0, flag bit 3,
/// as Android's dumpstate writes them). Such a member's end is found by inflating it: at most
/// `limit` bytes each, output dropped. The walk stops at the first header it cannot read; the last
/// member may be cut, and is then read as far as it goes.
enum ZipLocalScan {
    static func members(fd: Int32, limit: Int64) -> [(name: String, member: ZipMember)] {
        let size = UInt64(max(OS.lseek(fd, 0, SEEK_END), 0))
        var found: [(name: String, member: ZipMember)] = []
        var at: UInt64 = 0
        while found.count < ZipDirectory.memberLimit,
            let header = try? ZipMember.read(fd, at: at, count: 30, size: size, "a local header"),
            ZipMember.le(header, 0, 4) == 0x0403_4b50
        {
            let (nameLength, extraLength) = (ZipMember.le(header, 26, 2), ZipMember.le(header, 28, 2))
            guard let name = try? ZipMember.read(fd, at: at + 30, count: nameLength, size: size, "a name") else {
                break
            }
            let flags = UInt16(ZipMember.le(header, 6, 2))
            let described = flags & 0x08 != 0
            // A ZIP64 member's sizes are in its extra field, not read here.
            let declared = ZipMember.le(header, 22, 4)
            var member = ZipMember(
                method: UInt16(ZipMember.le(header, 8, 2)), flags: flags, checksum: UInt32(ZipMember.le(header, 14, 4)),
                compressedSize: ZipMember.le(header, 18, 4),
                uncompressedSize: described || declared == 0xffff_ffff ? nil : declared,
                dataOffset: at + 30 + nameLength + extraLength)
            guard member.dataOffset <= size else { break }
            let rest = size - member.dataOffset
            var next: UInt64?
            if described {
                // Only a deflate stream says where it ends.
                guard member.method == 8,
                    let length = deflateLength(fd, at: member.dataOffset, size: size, limit: limit)
                else {
                    member.compressedSize = rest
                    found.append((ZipDirectory.displayName(name[...]), member))
                    break
                }
                member.compressedSize = length
                (member.checksum, next) = descriptor(fd, at: member.dataOffset + length, size: size)
            } else if member.compressedSize <= rest {
                next = member.dataOffset + member.compressedSize
            } else {
                member.compressedSize = rest
            }
            found.append((ZipDirectory.displayName(name[...]), member))
            guard let next else { break }
            at = next
        }
        return found
    }

    /// The data descriptor at `at`: its CRC-32 and where the next header begins. The signature is
    /// optional and the sizes 4 or 8 bytes each (ZIP64): the next header's signature tells which.
    private static func descriptor(_ fd: Int32, at: UInt64, size: UInt64) -> (UInt32, UInt64?) {
        guard at <= size, let d = try? ZipMember.read(fd, at: at, count: min(28, size - at), size: size, "") else {
            return (0, nil)
        }
        let signed = d.count >= 4 && ZipMember.le(d, 0, 4) == 0x0807_4b50 ? 4 : 0
        guard d.count >= signed + 4 else { return (0, nil) }
        let crc = UInt32(ZipMember.le(d, signed, 4))
        for length in [signed + 12, signed + 20] where d.count >= length + 4 {
            let signature = ZipMember.le(d, length, 4)
            if signature == 0x0403_4b50 || signature == 0x0201_4b50 { return (crc, at + UInt64(length)) }
        }
        return (crc, nil)
    }

    /// The compressed length of the raw deflate stream at `at`, or nil when the file ends (or
    /// `limit` bytes come out) before it does.
    static func deflateLength(_ fd: Int32, at: UInt64, size: UInt64, limit: Int64) -> UInt64? {
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer {
            inflateEnd(&stream)
            input.deallocate()
            output.deallocate()
        }
        var position = at
        while position < size {
            let got = ZipMember.readFully(
                fd,
                into: UnsafeMutableRawBufferPointer(rebasing: input[..<Int(min(UInt64(input.count), size - position))]),
                at: position)
            guard got > 0 else { return nil }
            position += UInt64(got)
            stream.next_in = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
            stream.avail_in = UInt32(got)
            repeat {
                stream.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
                stream.avail_out = UInt32(output.count)
                let status = inflate(&stream, Z_NO_FLUSH)
                if status == Z_STREAM_END { return UInt64(stream.total_in) }
                guard status == Z_OK || status == Z_BUF_ERROR, Int64(stream.total_out) <= limit else { return nil }
            } while stream.avail_out == 0
        }
        return nil
    }
}
