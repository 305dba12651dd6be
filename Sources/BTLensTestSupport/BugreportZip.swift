import Foundation
import ZIPFoundation

/// A bugreport .zip as Android writes one: members by name, deflated or stored. Every member has
/// the same modification time, so the same members give the same bytes.
public enum BugreportZip {
    public static func make(_ members: [(name: String, bytes: [UInt8], deflate: Bool)]) -> [UInt8] {
        guard let archive = try? Archive(data: Data(), accessMode: .create, pathEncoding: nil) else { return [] }
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        for m in members {
            try? archive.addEntry(with: m.name, type: .file, uncompressedSize: Int64(m.bytes.count),
                                  modificationDate: date, compressionMethod: m.deflate ? .deflate : .none) { position, count in
                Data(m.bytes[Int(position) ..< Int(position) + count])
            }
        }
        return archive.data.map(Array.init) ?? []
    }
}
