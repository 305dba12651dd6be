import CBTLensZlib
import Foundation

/// Builds the btsnooz summary text of an Android bugreport (see BTSnoozReader for the layout).
public struct BTSnoozWriter {
    public struct Record {
        public var type: UInt8
        public var delta: UInt32
        public var bytes: [UInt8]
        /// The packet's length before the 14-byte cut (v2 only); nil means not cut.
        public var original: Int?
        public init(type: UInt8, delta: UInt32, bytes: [UInt8], original: Int? = nil) {
            self.type = type
            self.delta = delta
            self.bytes = bytes
            self.original = original
        }
    }

    public var version: UInt8
    public var lastTimestamp: UInt64
    public var records: [Record] = []

    public init(version: UInt8, lastTimestamp: UInt64) {
        self.version = version
        self.lastTimestamp = lastTimestamp
    }

    public var blob: [UInt8] {
        var out: [UInt8] = []
        for r in records {
            out += le16(r.bytes.count + 1)
            if version == 2 { out += le16((r.original ?? r.bytes.count) + 1) }
            out += [
                UInt8(r.delta & 0xff), UInt8(r.delta >> 8 & 0xff), UInt8(r.delta >> 16 & 0xff), UInt8(r.delta >> 24),
            ]
            out.append(r.type)
            out += r.bytes
        }
        return out
    }

    /// The text as a bugreport holds it, with some unrelated lines around it.
    public func text(compressed: [UInt8]? = nil) -> String {
        var preamble = [version]
        for i in 0..<8 { preamble.append(UInt8(lastTimestamp >> (8 * UInt64(i)) & 0xff)) }
        let encoded = Data(preamble + (compressed ?? Self.deflate(blob))).base64EncodedString()
        var lines = [
            "== dumpsys bluetooth_manager ==", "Bluetooth Status",
            "--- BEGIN:BTSNOOP_LOG_SUMMARY (\(blob.count) bytes in) ---",
        ]
        var rest = Substring(encoded)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(128)))
            rest = rest.dropFirst(128)
        }
        lines += ["--- END:BTSNOOP_LOG_SUMMARY (\(encoded.count) bytes out) ---", "", "other sections…"]
        return lines.joined(separator: "\n") + "\n"
    }

    public static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var size = compressBound(UInt(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { i in compress2(o.baseAddress, &size, i.baseAddress, UInt(bytes.count), 9) }
        }
        precondition(status == Z_OK, "zlib compress2 failed in a test helper")
        return Array(out.prefix(Int(size)))
    }
}
