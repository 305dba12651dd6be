import BTLensCapture
import Foundation

/// The forms that wrap another capture: a summary's compressed records, a zip's member.
extension MutantBases {
    /// An Android bugreport summary of the sample's records (BTSnoozWriter), whose compressed
    /// records are the inner capture: length (u16), original length (v2), delta (u32), type.
    static func btsnooz(_ name: String, _ records: [CaptureRecord], version: UInt8) -> MutantBase {
        var writer = BTSnoozWriter(
            version: version, lastTimestamp: UInt64(bitPattern: records.last?.timestamp.microseconds ?? 0))
        var previous = records.first?.timestamp.microseconds ?? 0
        for r in records {
            let received = r.direction == .received
            let type: UInt8
            switch r.kind {
            case .command: type = 0x20
            case .event: type = 0x10
            case .aclData: type = received ? 0x11 : 0x21
            case .scoData: type = received ? 0x12 : 0x22
            case .isoData: type = received ? 0x17 : 0x2d
            case .note, .unknown, .linkLayer: continue
            }
            let delta = UInt32(clamping: max(0, r.timestamp.microseconds - previous))
            previous = r.timestamp.microseconds
            writer.records.append(.init(type: type, delta: delta, bytes: Array(r.payload)))
        }
        var blob = MutantBase(name: name + "-v\(version)", bytes: writer.blob)
        var at = 0
        let header = version == 1 ? 7 : 9
        while at + header <= blob.bytes.count {
            let n = blob.records.count + 1
            let length = Int(blob.bytes[at]) | Int(blob.bytes[at + 1]) << 8
            blob.field(at, 2, bigEndian: false, .length, "record \(n) length")
            if version == 2 { blob.field(at + 2, 2, bigEndian: false, .length, "record \(n) original length") }
            blob.field(at + header - 5, 4, bigEndian: false, .time, "record \(n) delta")
            blob.field(at + header - 1, 1, bigEndian: false, .other, "record \(n) type")
            blob.hciFields(at + header, type: [0x20: 1, 0x10: 4, 0x11: 2, 0x21: 2][blob.bytes[at + header - 1]] ?? 0)
            blob.records.append(at..<min(at + header - 1 + length, blob.bytes.count))
            at = blob.records.last!.upperBound
        }
        let last = writer.lastTimestamp
        let wrap = { (records: [UInt8]) -> MutantBase in
            // The decoded summary: version, last timestamp (u64 LE), the zlib stream; written as
            // the bugreport's base64 text.
            var b = MutantBase(
                name: name + "-v\(version)",
                bytes: [version] + (0..<8).map { UInt8(last >> (8 * $0) & 0xff) }
                    + BTSnoozWriter.deflate(records))
            b.field(0, 1, bigEndian: false, .other, "summary version")
            b.field(1, 8, bigEndian: false, .time, "summary last timestamp")
            b.records = [9..<b.bytes.count]
            b.render = { bytes in
                let encoded = Array(Data(bytes).base64EncodedString().utf8)
                let lines = stride(from: 0, to: encoded.count, by: 128).map {
                    encoded[$0..<min($0 + 128, encoded.count)] + [0x0a]
                }
                return Array(
                    "== dumpsys bluetooth_manager ==\n--- BEGIN:BTSNOOP_LOG_SUMMARY (\(records.count) bytes in) ---\n"
                        .utf8)
                    + lines.joined() + Array("--- END:BTSNOOP_LOG_SUMMARY (\(encoded.count) bytes out) ---\n".utf8)
            }
            return b
        }
        var outer = wrap(blob.bytes)
        outer.inner = .init(blob, wrap)
        return outer
    }

    /// A bugreport .zip holding the btsnoop as FS/data/misc/bluetooth/logs/btsnoop_hci.log, with
    /// the zip's own fields: local and central headers' sizes, name and extra lengths, offsets.
    static func zipped(_ member: MutantBase) -> MutantBase {
        let wrap = { (bytes: [UInt8]) -> MutantBase in
            var b = MutantBase(name: member.name, bytes: zip(bytes))
            b.zipFields()
            return b
        }
        var outer = wrap(member.bytes)
        outer.inner = .init(member, wrap)
        return outer
    }

    static func zip(_ bytes: [UInt8]) -> [UInt8] {
        BugreportZip.make([
            ("FS/data/misc/bluetooth/logs/btsnoop_hci.log", bytes, true),
            ("bugreport-device-2026-01-01.txt", Array("hello".utf8), false),
        ])
    }

}

extension MutantBase {
    /// The fields of a zip's local headers (signature 50 4b 03 04), central directory entries
    /// (50 4b 01 02) and end record (50 4b 05 06) (APPNOTE.TXT §4.3).
    mutating func zipFields() {
        var at = 0
        let whole = self
        func v(_ o: Int, _ w: Int) -> Int {
            Int(whole.value(Field(offset: at + o, width: w, bigEndian: false, kind: .other, name: "")))
        }
        while at + 4 <= bytes.count {
            let sig = MutantBases.le32(bytes, at)
            let start = at
            switch sig {
            case 0x0403_4b50 where at + 30 <= bytes.count:
                field(at + 8, 2, bigEndian: false, .other, "local method")
                field(at + 14, 4, bigEndian: false, .other, "local CRC")
                field(at + 18, 4, bigEndian: false, .length, "local compressed size")
                field(at + 22, 4, bigEndian: false, .length, "local size")
                field(at + 26, 2, bigEndian: false, .length, "local name length")
                field(at + 28, 2, bigEndian: false, .length, "local extra length")
                at += 30 + v(26, 2) + v(28, 2) + v(18, 4)
            case 0x0201_4b50 where at + 46 <= bytes.count:
                field(at + 10, 2, bigEndian: false, .other, "central method")
                field(at + 20, 4, bigEndian: false, .length, "central compressed size")
                field(at + 24, 4, bigEndian: false, .length, "central size")
                field(at + 28, 2, bigEndian: false, .length, "central name length")
                field(at + 30, 2, bigEndian: false, .length, "central extra length")
                field(at + 32, 2, bigEndian: false, .length, "central comment length")
                field(at + 42, 4, bigEndian: false, .length, "central local header offset")
                at += 46 + v(28, 2) + v(30, 2) + v(32, 2)
            case 0x0605_4b50 where at + 22 <= bytes.count:
                field(at + 8, 2, bigEndian: false, .length, "end entries on disk")
                field(at + 10, 2, bigEndian: false, .length, "end entries")
                field(at + 12, 4, bigEndian: false, .length, "end central directory size")
                field(at + 16, 4, bigEndian: false, .length, "end central directory offset")
                field(at + 20, 2, bigEndian: false, .length, "end comment length")
                at += 22
            default:
                at = bytes.count
            }
            if at > start { records.append(start..<min(at, bytes.count)) }
        }
    }
}
