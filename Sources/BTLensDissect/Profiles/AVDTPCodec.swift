import BTLensCore

/// The Media Codec service capability (AVDTP 1.3 §8.21.5): media type, codec type and the codec's
/// own information element, read for the codecs of A2DP 1.3 §4 and the vendor codecs phones use.
/// Vendor ids and codec ids: docs/protocols/a2dp-vendor-codecs.md.
struct AVDTPCodec {
    var mediaType: String
    var name: String
    /// `sampling_frequencies`, `channel_modes`, … as docs/jsonl.md names them.
    var fields: [(String, FieldValue)] = []
    /// One line for a configuration: "SBC 48000 Hz joint stereo, bitpool 2-53".
    var summary: String

    /// The capability's bytes (after category and length). Throws when an element the codec
    /// needs is cut short; offsets are from the start of `bytes`.
    init(_ bytes: ArraySlice<UInt8>) throws(ShortRead) {
        var r = ByteReader(bytes)
        let media = try r.u8() >> 4
        let type = try r.u8()
        mediaType = AVDTPNames.mediaType(media)
        name = Self.name(media: media, type: type)
        summary = name
        switch (media, type) {
        case (0, 0x00): try sbc(&r)
        case (0, 0x01): try mpeg12(&r)
        case (0, 0x02): try aac(&r)
        case (_, 0xff): try vendor(&r)
        default: break
        }
    }

    static func name(media: UInt8, type: UInt8) -> String {
        if type == 0xff { return "vendor" }
        let names: [UInt8: String] =
            switch media {
            case 0: [0x00: "SBC", 0x01: "MPEG-1,2 Audio", 0x02: "MPEG-2,4 AAC", 0x03: "MPEG-D USAC", 0x04: "ATRAC"]
            case 1:
                [
                    0x01: "H.263 baseline", 0x02: "MPEG-4 Visual Simple Profile", 0x03: "H.263 profile 3",
                    0x04: "H.263 profile 8",
                ]
            default: [:]
            }
        return names[type] ?? "Unknown (\(Hex.value(type, width: 2)))"
    }

    static let channelModes: [(UInt8, String)] = [
        (0x08, "mono"), (0x04, "dual channel"), (0x02, "stereo"), (0x01, "joint stereo"),
    ]

    /// Frequencies, then channel modes; what most codecs start with.
    private mutating func frequenciesAndModes(_ frequencies: String, _ modes: String) {
        fields += [("sampling_frequencies", .string(frequencies)), ("channel_modes", .string(modes))]
        summary = "\(name) \(frequencies) Hz \(modes)"
    }

    /// SBC (A2DP 1.3 §4.3.2): frequencies and channel modes, block lengths, subbands, allocation,
    /// bitpool range.
    private mutating func sbc(_ r: inout ByteReader) throws(ShortRead) {
        let (a, b, min, max) = (try r.u8(), try r.u8(), try r.u8(), try r.u8())
        let frequencies = AVDTPNames.bits(a, [(0x80, "16000"), (0x40, "32000"), (0x20, "44100"), (0x10, "48000")])
        frequenciesAndModes(frequencies, AVDTPNames.bits(a, Self.channelModes, separator: ", "))
        fields += [
            ("block_lengths", .string(AVDTPNames.bits(b, [(0x80, "4"), (0x40, "8"), (0x20, "12"), (0x10, "16")]))),
            ("subbands", .string(AVDTPNames.bits(b, [(0x08, "4"), (0x04, "8")]))),
            ("allocation", .string(AVDTPNames.bits(b, [(0x02, "SNR"), (0x01, "loudness")], separator: ", "))),
            ("bitpool_min", .int(min)), ("bitpool_max", .int(max)),
        ]
        summary += ", bitpool \(min)-\(max)"
    }

    /// MPEG-1,2 Audio (A2DP 1.3 §4.4.2): layers, CRC, channel modes, MPF-2, frequencies, VBR and
    /// the bit rate indexes supported (bit n: index n).
    private mutating func mpeg12(_ r: inout ByteReader) throws(ShortRead) {
        let (a, b, rate) = (try r.u8(), try r.u8(), try r.u16be())
        let layers = AVDTPNames.bits(a, [(0x80, "I"), (0x40, "II"), (0x20, "III")])
        let frequencies = AVDTPNames.bits(
            b, [(0x20, "16000"), (0x10, "22050"), (0x08, "24000"), (0x04, "32000"), (0x02, "44100"), (0x01, "48000")])
        frequenciesAndModes(frequencies, AVDTPNames.bits(a, Self.channelModes, separator: ", "))
        let indexes = (0..<15).filter { rate & (1 << $0) != 0 }.map(String.init)
        fields += [
            ("layers", .string(layers)), ("crc", .bool(a & 0x10 != 0)), ("mpf", .bool(b & 0x40 != 0)),
            ("vbr", .bool(rate & 0x8000 != 0)),
            ("bitrate_indexes", .string(indexes.isEmpty ? "none" : indexes.joined(separator: " "))),
        ]
        summary += ", layer \(layers)"
    }

    /// MPEG-2,4 AAC (A2DP 1.3 §4.5.2): object types, frequencies, channels, VBR and bit rate.
    private mutating func aac(_ r: inout ByteReader) throws(ShortRead) {
        let (a, b, c) = (try r.u8(), try r.u8(), try r.u8())
        let (d, rateLow) = (try r.u8(), try r.u16be())
        let objects = AVDTPNames.bits(
            a,
            [
                (0x80, "MPEG-2 AAC LC"), (0x40, "MPEG-4 AAC LC"), (0x20, "MPEG-4 AAC LTP"),
                (0x10, "MPEG-4 AAC scalable"),
            ],
            separator: ", ")
        let low: [(UInt8, String)] = [
            (0x80, "8000"), (0x40, "11025"), (0x20, "12000"), (0x10, "16000"), (0x08, "22050"), (0x04, "24000"),
            (0x02, "32000"), (0x01, "44100"),
        ]
        let high: [(UInt8, String)] = [(0x80, "48000"), (0x40, "64000"), (0x20, "88200"), (0x10, "96000")]
        let frequencies = [AVDTPNames.bits(b, low), AVDTPNames.bits(c, high)].filter { $0 != "none" }
        let frequencyText = frequencies.isEmpty ? "none" : frequencies.joined(separator: " ")
        let channels = AVDTPNames.bits(c, [(0x08, "1"), (0x04, "2")])
        let bitrate = Int(d & 0x7f) << 16 | Int(rateLow)
        let vbr = d & 0x80 != 0
        fields += [
            ("object_types", .string(objects)), ("sampling_frequencies", .string(frequencyText)),
            ("channels", .string(channels)), ("vbr", .bool(vbr)), ("bitrate", .int(bitrate)),
        ]
        summary = "\(name) \(frequencyText) Hz \(channels) channels, \(objects), \(bitrate) bit/s\(vbr ? " VBR" : "")"
    }

    /// Known vendor codecs: (vendor id, codec id) to name.
    static let vendorCodecs: [UInt64: String] = [
        0x0000_004f_0001: "aptX", 0x0000_00d7_0024: "aptX HD", 0x0000_00d7_00ad: "aptX Adaptive",
        0x0000_000a_0002: "aptX Low Latency", 0x0000_012d_00aa: "LDAC", 0x0000_08a9_0001: "LC3plus",
        0x0000_00e0_0001: "Opus", 0x0000_05f1_1005: "Opus (PipeWire)",
    ]

    /// A non-A2DP codec (A2DP 1.3 §4.7.2): vendor id (u32 LE), codec id (u16 LE), then the vendor's
    /// bytes, read for aptX, aptX HD and LDAC.
    private mutating func vendor(_ r: inout ByteReader) throws(ShortRead) {
        let vendor = try r.u32le()
        let codec = try r.u16le()
        name =
            Self.vendorCodecs[UInt64(vendor) << 16 | UInt64(codec)]
            ?? "vendor \(Hex.value(vendor, width: 8))/\(Hex.value(codec, width: 4))"
        summary = name
        switch name {
        case "aptX", "aptX HD":
            // One byte as SBC's first: frequencies, channel modes (aptX HD adds 4 reserved bytes).
            let a = try r.u8()
            let frequencies = AVDTPNames.bits(
                a, [(0x80, "16000"), (0x40, "32000"), (0x20, "44100"), (0x10, "48000")])
            frequenciesAndModes(frequencies, AVDTPNames.bits(a, Self.channelModes, separator: ", "))
        case "LDAC":
            let (a, b) = (try r.u8(), try r.u8())
            let frequencies = AVDTPNames.bits(
                a,
                [
                    (0x20, "44100"), (0x10, "48000"), (0x08, "88200"), (0x04, "96000"), (0x02, "176400"),
                    (0x01, "192000"),
                ])
            let modes = AVDTPNames.bits(b, [(0x04, "mono"), (0x02, "dual channel"), (0x01, "stereo")], separator: ", ")
            frequenciesAndModes(frequencies, modes)
        default: break
        }
    }
}
