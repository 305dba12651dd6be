import BTLensCore

/// The names AVDTP signalling gives its numbers. Unknown values print as `Unknown (0x09)`.
enum AVDTPNames {
    /// Signal identifiers (AVDTP 1.3 §8.5, the table of signal identifiers), as the spec writes them.
    static func signal(_ id: UInt8) -> String {
        signals[id] ?? "Signal \(Hex.value(id, width: 2))"
    }

    static let signals: [UInt8: String] = [
        0x01: "Discover", 0x02: "Get Capabilities", 0x03: "Set Configuration", 0x04: "Get Configuration",
        0x05: "Reconfigure", 0x06: "Open", 0x07: "Start", 0x08: "Close", 0x09: "Suspend", 0x0a: "Abort",
        0x0b: "Security Control", 0x0c: "Get All Capabilities", 0x0d: "Delay Report",
    ]

    /// Service categories (AVDTP 1.3 §8.21.1).
    static func serviceCategory(_ c: UInt8) -> String {
        categories[c] ?? "Unknown (\(Hex.value(c, width: 2)))"
    }

    static let categories: [UInt8: String] = [
        0x01: "Media Transport", 0x02: "Reporting", 0x03: "Recovery", 0x04: "Content Protection",
        0x05: "Header Compression", 0x06: "Multiplexing", 0x07: "Media Codec", 0x08: "Delay Reporting",
    ]

    /// Media types (Assigned Numbers, Audio/Video: 4 bits).
    static func mediaType(_ t: UInt8) -> String {
        ["audio", "video", "multimedia"][safe: Int(t)] ?? "Unknown (\(Hex.value(t, width: 1)))"
    }

    /// Content protection types (Assigned Numbers, Audio/Video), as they are known.
    static func contentProtection(_ t: UInt16) -> String {
        [0x0001: "DTCP", 0x0002: "SCMS-T"][t] ?? "Unknown (\(Hex.value(t, width: 4)))"
    }

    /// Error codes of reject responses: AVDTP 1.3 §8.20.6.2, and the codec-specific ones of
    /// A2DP 1.3 §5.1.3 (0xc1–0xe3).
    static func error(_ code: UInt8) -> String {
        errors[code] ?? "Unknown (\(Hex.value(code, width: 2)))"
    }

    static let errors: [UInt8: String] = [
        0x01: "Bad Header Format", 0x11: "Bad Length", 0x12: "Bad ACP SEID", 0x13: "SEP In Use",
        0x14: "SEP Not In Use", 0x17: "Bad Service Category", 0x18: "Bad Payload Format",
        0x19: "Not Supported Command", 0x1a: "Invalid Capabilities", 0x22: "Bad Recovery Type",
        0x23: "Bad Media Transport Format", 0x25: "Bad Recovery Format", 0x26: "Bad ROHC Format",
        0x27: "Bad CP Format", 0x28: "Bad Multiplexing Format", 0x29: "Unsupported Configuration",
        0x31: "Bad State",
        0xc1: "Invalid Codec Type", 0xc2: "Not Supported Codec Type", 0xc3: "Invalid Sampling Frequency",
        0xc4: "Not Supported Sampling Frequency", 0xc5: "Invalid Channel Mode", 0xc6: "Not Supported Channel Mode",
        0xc7: "Invalid Subbands", 0xc8: "Not Supported Subbands", 0xc9: "Invalid Allocation Method",
        0xca: "Not Supported Allocation Method", 0xcb: "Invalid Minimum Bitpool Value",
        0xcc: "Not Supported Minimum Bitpool Value", 0xcd: "Invalid Maximum Bitpool Value",
        0xce: "Not Supported Maximum Bitpool Value", 0xcf: "Invalid Layer", 0xd0: "Not Supported Layer",
        0xd1: "Not Supported CRC", 0xd2: "Not Supported MPF", 0xd3: "Not Supported VBR", 0xd4: "Invalid Bit Rate",
        0xd5: "Not Supported Bit Rate", 0xd6: "Invalid Object Type", 0xd7: "Not Supported Object Type",
        0xd8: "Invalid Channels", 0xd9: "Not Supported Channels", 0xda: "Invalid Version",
        0xdb: "Not Supported Version", 0xdc: "Not Supported Maximum SUL", 0xdd: "Invalid Block Length",
        0xe0: "Invalid CP Type", 0xe1: "Invalid CP Format", 0xe2: "Invalid Codec Parameter",
        0xe3: "Not Supported Codec Parameter",
    ]

    /// The names of the bits set in `value`, in the order `bits` lists them; "none" when none is.
    static func bits<T: FixedWidthInteger>(_ value: T, _ bits: [(T, String)], separator: String = " ") -> String {
        let set = bits.filter { value & $0.0 != 0 }.map(\.1)
        return set.isEmpty ? "none" : set.joined(separator: separator)
    }
}

extension Array {
    fileprivate subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
