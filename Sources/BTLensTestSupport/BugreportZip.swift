import CBTLensZlib
import Foundation
import ZIPFoundation

/// A bugreport .zip as Android writes one: members by name, deflated or stored. Every member has
/// the same modification time, so the same members give the same bytes.
public enum BugreportZip {
    public static func make(_ members: [(name: String, bytes: [UInt8], deflate: Bool)]) -> [UInt8] {
        guard let archive = try? Archive(data: Data(), accessMode: .create, pathEncoding: nil) else { return [] }
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        for m in members {
            try? archive.addEntry(
                with: m.name, type: .file, uncompressedSize: Int64(m.bytes.count),
                modificationDate: date, compressionMethod: m.deflate ? .deflate : .none
            ) { position, count in
                Data(m.bytes[Int(position)..<Int(position) + count])
            }
        }
        return archive.data.map(Array.init) ?? []
    }
}

extension BugreportZip {
    /// A zip of one member written byte by byte, whatever its fields say: local file header
    /// (APPNOTE.TXT 4.3.7), the member's stored bytes, one central directory header (4.3.12) and the
    /// end of central directory record (4.3.16). `method` 0 is stored, 8 deflated.
    public static func single(_ name: String, data: [UInt8], method: UInt16, crc: UInt32, size: Int) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xffff) + u16(v >> 16 & 0xffff) }
        let fields =
            u16(Int(method)) + u16(0) + u16(0x5821) + u32(Int(crc)) + u32(data.count) + u32(size)
            + u16(name.utf8.count) + u16(0)
        let local = [0x50, 0x4b, 0x03, 0x04] + u16(20) + u16(0) + fields + Array(name.utf8) + data
        let central =
            [0x50, 0x4b, 0x01, 0x02] + u16(20) + u16(20) + u16(0) + fields + u16(0) + u16(0) + u16(0)
            + u32(0) + u32(0) + Array(name.utf8)
        return local + central + [0x50, 0x4b, 0x05, 0x06] + u16(0) + u16(0) + u16(1) + u16(1)
            + u32(central.count) + u32(local.count) + u16(0)
    }

    /// Raw deflate data (RFC 1951), as a zip member holds it: zlib's stream without its 2-byte
    /// header and 4-byte Adler-32.
    public static func rawDeflate(_ bytes: [UInt8]) -> [UInt8] {
        Array(BTSnoozWriter.deflate(bytes).dropFirst(2).dropLast(4))
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        UInt32(bytes.withUnsafeBufferPointer { CBTLensZlib.crc32(0, $0.baseAddress, UInt32($0.count)) })
    }
}
