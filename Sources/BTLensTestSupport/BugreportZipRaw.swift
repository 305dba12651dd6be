/// Zips written field by field, whatever the fields say, for the hostile archive tests: local file
/// headers (APPNOTE.TXT 4.3.7), central directory headers (4.3.12), and the end of central directory
/// record (4.3.16), or ZIP64's record and locator before it (4.3.14, 4.3.15).
extension BugreportZip {
    public struct RawMember {
        public var name: [UInt8]
        /// The member's bytes as stored (deflated already when `method` is 8).
        public var data: [UInt8]
        public var method: UInt16
        /// General purpose bits: 0x0001 encrypted, 0x0800 UTF-8 name.
        public var flags: UInt16
        public var crc: UInt32
        /// The uncompressed size declared, in both headers.
        public var size: UInt32

        public init(name: [UInt8], data: [UInt8], method: UInt16 = 0, flags: UInt16 = 0, crc: UInt32, size: UInt32) {
            (self.name, self.data, self.method, self.flags, self.crc, self.size) = (
                name, data, method, flags, crc, size
            )
        }

        /// A stored member that says the truth about itself.
        public init(_ name: String, stored data: [UInt8]) {
            self.init(name: Array(name.utf8), data: data, crc: BugreportZip.crc32(data), size: UInt32(data.count))
        }
    }

    /// `members` in order; the end record says `count` members (the real count's low 16 bits
    /// unless given). With `zip64DirectoryOffset`, the end record defers to a ZIP64 record that puts
    /// the central directory there.
    public static func raw(_ members: [RawMember], count: Int? = nil, zip64DirectoryOffset: UInt64? = nil) -> [UInt8] {
        func le(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
        var out: [UInt8] = []
        var central: [UInt8] = []
        for m in members {
            let offset = out.count
            let fields =
                le(UInt64(m.flags), 2) + le(UInt64(m.method), 2) + le(0x5821, 4) + le(UInt64(m.crc), 4)
                + le(UInt64(m.data.count), 4) + le(UInt64(m.size), 4) + le(UInt64(m.name.count), 2) + le(0, 2)
            out += le(0x0403_4b50, 4) + le(20, 2) + fields + m.name + m.data
            central += le(0x0201_4b50, 4) + le(20, 2) + le(20, 2) + fields + le(0, 10) + le(UInt64(offset), 4) + m.name
        }
        let start = out.count
        out += central
        let declared = UInt64(count ?? members.count & 0xffff)
        guard let zip64DirectoryOffset else {
            return out + le(0x0605_4b50, 4) + le(0, 4) + le(declared, 2) + le(declared, 2)
                + le(UInt64(central.count), 4) + le(UInt64(start), 4) + le(0, 2)
        }
        let record = out.count
        out +=
            le(0x0606_4b50, 4) + le(44, 8) + le(45, 2) + le(45, 2) + le(0, 8) + le(declared, 8) + le(declared, 8)
            + le(UInt64(central.count), 8) + le(zip64DirectoryOffset, 8)
        out += le(0x0706_4b50, 4) + le(0, 4) + le(UInt64(record), 8) + le(1, 4)
        return out + le(0x0605_4b50, 4) + le(0, 4) + le(0xffff, 2) + le(0xffff, 2) + le(0xffff_ffff, 4)
            + le(0xffff_ffff, 4) + le(0, 2)
    }
}
