import BTLensCore

/// A streaming reader of one capture: records come out one at a time, in file order.
public protocol CaptureReader {
    var info: CaptureInfo { get }
    /// The next record or file problem; nil at the end of the capture.
    mutating func next() throws(CaptureOpenError) -> CaptureItem?
}

/// What a reader knows about the file as a whole.
public struct CaptureInfo: Sendable, Equatable {
    /// Short name of the format, e.g. `btsnoop`.
    public var format: String
    /// The format's link type: btsnoop datalink (1001, 1002, 2001) or pcap LINKTYPE.
    public var linkType: Int
    /// Human-readable description of the link type, e.g. `H4 (UART)`.
    public var linkTypeName: String
    public var notes: [String] = []

    public init(format: String, linkType: Int, linkTypeName: String) {
        self.format = format
        self.linkType = linkType
        self.linkTypeName = linkTypeName
    }
}

/// Recognises a capture by its first bytes, never by its name.
public enum CaptureFormat {
    public static let btsnoopMagic: [UInt8] = Array("btsnoop\0".utf8)

    /// Opens whatever capture `source` holds.
    public static func open(_ source: any ByteSource) throws(CaptureOpenError) -> any CaptureReader {
        var input = ChunkedInput(source)
        _ = try input.ensure(16)
        let head = Array(input.peek(16))
        if head.starts(with: btsnoopMagic) { return try BTSnoopReader(input) }
        let magic = head.count >= 4 ? UInt32(head[0]) << 24 | UInt32(head[1]) << 16 | UInt32(head[2]) << 8 | UInt32(head[3]) : 0
        switch magic {
        case 0xa1b2_c3d4, 0xd4c3_b2a1, 0xa1b2_3c4d, 0x4d3c_b2a1:
            throw .unsupported(format: "pcap", detail: "pcap files are read through libpcap, which is not wired in yet (btlens \(Libpcap.version))")
        case 0x0a0d_0d0a:
            throw .unsupported(format: "pcapng", detail: "pcapng files are read through libpcap, which is not wired in yet")
        default:
            throw .notACapture(firstBytes: Hex.spaced(head.prefix(8)))
        }
    }

    public static func open(path: String) throws(CaptureOpenError) -> any CaptureReader {
        try open(FileSource(path: path))
    }
}
