import BTLensCore

/// A zip's central directory, read by btlens itself through `ByteReader` (APPNOTE.TXT 4.3.12
/// central directory header, 4.3.14–4.3.16 ZIP64 and end of central directory records, 4.5.3 ZIP64
/// extended information). Every offset, size and count is checked against the file before it is
/// used: a ZIP64 directory offset of 2^63 made ZIPFoundation trap (SIGILL) on converting it.
struct ZipDirectory {
    struct Entry {
        /// UTF-8 as Android writes it; a name that is not UTF-8 has its bytes from 0x80 up as `\xNN`.
        var name: String
        var flags: UInt16
        var method: UInt16
        var checksum: UInt32
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        var headerOffset: UInt64
    }

    var entries: [Entry]

    /// The most central directory btlens reads: 10,000 members with long names fit in 2 MiB.
    static let sizeLimit: UInt64 = 16 << 20
    /// The most members btlens lists (the end record's 16-bit count wraps past 65,535).
    static let memberLimit = 100_000

    enum Failure: Error {
        case noEndRecord
        case damaged(String)
        /// Past a bound of btlens', not wrong.
        case refused(String)
    }

    /// The central directory of the zip open at `fd`, of `size` bytes.
    static func read(_ fd: Int32, size: UInt64) throws(Failure) -> ZipDirectory {
        let (offset, length, declared) = try locate(fd, size: size)
        guard offset <= size, length <= size - offset else {
            throw .damaged(
                "its central directory (\(length) bytes at offset \(offset)) runs past the end of the archive (\(size) bytes)"
            )
        }
        guard length <= sizeLimit else {
            throw .refused(
                "its central directory is \(length) bytes; btlens reads at most \(sizeLimit >> 20) MiB (\(sizeLimit) bytes)"
            )
        }
        let bytes = try bytes(fd, at: offset, count: length, size: size, "the central directory")
        var reader = ByteReader(bytes)
        var entries: [Entry] = []
        while !reader.isAtEnd {
            guard entries.count < memberLimit else {
                throw .refused("it lists more than \(memberLimit) members; btlens reads at most \(memberLimit)")
            }
            guard let entry = try? Self.entry(&reader) else {
                throw .damaged(
                    "its central directory lists \(Plural.of(Int(clamping: declared), "member")), only \(entries.count) can be read"
                )
            }
            entries.append(entry)
        }
        // The end record's count is 16 bits: 65,536 members more or fewer cannot be told from it.
        guard UInt64(entries.count) == declared || (declared <= 0xffff && UInt64(entries.count & 0xffff) == declared)
        else {
            throw .damaged(
                "its central directory holds \(Plural.of(entries.count, "member")), its end record says \(declared)")
        }
        return ZipDirectory(entries: entries)
    }

    /// The central directory's offset, size and member count, from the end record or the ZIP64 one
    /// it defers to.
    private static func locate(_ fd: Int32, size: UInt64) throws(Failure) -> (UInt64, UInt64, UInt64) {
        let tailStart = size > 65_557 ? size - 65_557 : 0
        let tail = try bytes(fd, at: tailStart, count: size - tailStart, size: size, "the end record")
        guard tail.count >= 22,
            let end = stride(from: tail.count - 22, through: 0, by: -1).first(where: {
                ZipMember.le(tail, $0, 4) == 0x0605_4b50
            })
        else { throw .noEndRecord }
        var record = ByteReader(tail[(end + 10)...])
        guard let count = try? record.u16le(), let length = try? record.u32le(), let offset = try? record.u32le()
        else { throw .noEndRecord }
        guard count == 0xffff || length == 0xffff_ffff || offset == 0xffff_ffff, end >= 20,
            ZipMember.le(tail, end - 20, 4) == 0x0706_4b50
        else { return (UInt64(offset), UInt64(length), UInt64(count)) }
        let at = ZipMember.le(tail, end - 12, 8)
        var zip64 = ByteReader(try bytes(fd, at: at, count: 56, size: size, "its ZIP64 end record"))
        guard (try? zip64.u32le()) == 0x0606_4b50, (try? zip64.skip(28)) != nil,
            let count64 = try? zip64.u64le(), let length64 = try? zip64.u64le(), let offset64 = try? zip64.u64le()
        else { throw .damaged("its ZIP64 end record is missing at offset \(at)") }
        return (offset64, length64, count64)
    }

    /// One central directory header (4.3.12), its ZIP64 values (4.5.3) in place of the all-ones ones.
    private static func entry(_ r: inout ByteReader) throws(ShortRead) -> Entry? {
        guard try r.u32le() == 0x0201_4b50 else { return nil }
        try r.skip(4)
        let (flags, method) = (try r.u16le(), try r.u16le())
        try r.skip(4)
        let checksum = try r.u32le()
        var (compressed, uncompressed) = (UInt64(try r.u32le()), UInt64(try r.u32le()))
        let (nameLength, extraLength, commentLength) = (Int(try r.u16le()), Int(try r.u16le()), Int(try r.u16le()))
        try r.skip(8)
        var offset = UInt64(try r.u32le())
        let name = try r.bytes(nameLength)
        var extra = ByteReader(try r.bytes(extraLength))
        try r.skip(commentLength)
        while let id = try? extra.u16le(), let length = try? extra.u16le(), let field = try? extra.bytes(Int(length)) {
            guard id == 0x0001 else { continue }
            var values = ByteReader(field)
            if uncompressed == 0xffff_ffff, let v = try? values.u64le() { uncompressed = v }
            if compressed == 0xffff_ffff, let v = try? values.u64le() { compressed = v }
            if offset == 0xffff_ffff, let v = try? values.u64le() { offset = v }
        }
        return Entry(
            name: displayName(name), flags: flags, method: method, checksum: checksum, compressedSize: compressed,
            uncompressedSize: uncompressed, headerOffset: offset)
    }

    /// The name as UTF-8; else its ASCII as it is and every other byte as `\xNN`, so that it can be
    /// shown and given to `--member`. A control character (below 0x20, and 0x7f) is `\xNN` either way.
    static func displayName(_ bytes: ArraySlice<UInt8>) -> String {
        func escaped(_ byte: UInt8) -> String { "\\x" + Hex.string([byte]) }
        func control(_ v: UInt32) -> Bool { v < 0x20 || v == 0x7f }
        if let name = String(validating: bytes, as: UTF8.self) {
            guard name.unicodeScalars.contains(where: { control($0.value) }) else { return name }
            return name.unicodeScalars.map { control($0.value) ? escaped(UInt8($0.value)) : String($0) }.joined()
        }
        return bytes.map { $0 < 0x80 && !control(UInt32($0)) ? String(UnicodeScalar($0)) : escaped($0) }.joined()
    }

    /// `count` bytes at `offset`, all of them inside the file.
    static func bytes(_ fd: Int32, at offset: UInt64, count: UInt64, size: UInt64, _ what: String) throws(Failure)
        -> [UInt8]
    {
        do { return try ZipMember.read(fd, at: offset, count: count, size: size, what) } catch {
            throw .damaged(error.detail)
        }
    }
}
