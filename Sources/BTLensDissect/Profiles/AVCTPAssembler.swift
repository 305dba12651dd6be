import BTLensCore

/// What one AVCTP packet gave: a whole message, nothing yet (both nil), or a problem; a problem
/// and a message together when a single packet ended a message in progress, or a message's
/// packets were not as many as its start said.
public struct AVCTPAssembly: Sendable {
    public var message: AVCTPMessage?
    public var diagnostic: Diagnostic?

    public init(message: AVCTPMessage? = nil, diagnostic: Diagnostic? = nil) {
        self.message = message
        self.diagnostic = diagnostic
    }
}

/// AVCTP packets of one L2CAP channel and direction in, whole messages out (AVCTP 1.4 §6.1.2). It
/// holds at most one message in progress, of at most `limit` bytes (65,536: AVRCP's AV/C frames are
/// at most 512 bytes, a browsing PDU at most the channel's MTU).
public struct AVCTPAssembler: Sendable {
    public static let limit = 65536

    struct Partial {
        var transaction: UInt8
        var isCommand: Bool
        var invalidPID: Bool
        var pid: UInt16
        var expectedPackets: Int
        var packets: Int
        var bytes: [UInt8]
    }
    var partial: Partial?

    public init() {}

    /// Bytes held for a message in progress.
    public var heldBytes: Int { partial?.bytes.count ?? 0 }

    /// The bytes of a message its channel closed in the middle of, given up.
    public mutating func takeHeld() -> [UInt8] {
        defer { partial = nil }
        return partial?.bytes ?? []
    }

    public mutating func push(_ packet: ArraySlice<UInt8>) -> AVCTPAssembly {
        var r = ByteReader(packet)
        guard let octet = try? r.u8() else { return Self.malformed(need: 1, have: 0, type: nil) }
        let h = AVCTPPacketHeader(octet)
        switch h.type {
        case .single:
            guard let pid = try? r.u16be() else { return Self.malformed(need: 3, have: packet.count, type: h.type) }
            let message = AVCTPMessage(
                transaction: h.transaction, isCommand: h.isCommand, invalidPID: h.invalidPID, pid: pid,
                payload: r.rest())
            return AVCTPAssembly(message: message, diagnostic: dropPartial(for: h))
        case .start:
            guard let count = try? r.u8(), let pid = try? r.u16be() else {
                return Self.malformed(need: 4, have: packet.count, type: h.type)
            }
            let dropped = dropPartial(for: h)
            partial = Partial(
                transaction: h.transaction, isCommand: h.isCommand, invalidPID: h.invalidPID, pid: pid,
                expectedPackets: Int(count), packets: 1, bytes: Array(r.rest()))
            return AVCTPAssembly(message: nil, diagnostic: dropped ?? overLimit())
        case .continue, .end:
            guard var p = partial, p.transaction == h.transaction, p.isCommand == h.isCommand else {
                let d = Diagnostic(
                    AVRCPDiagnostics.fragmentUnexpected,
                    "AVCTP \(h.type.name) packet of transaction \(h.transaction) with no message of that transaction in progress; its \(packet.count) bytes are dropped",
                    fields: [("packet_type", .string(h.type.name)), ("transaction", .int(h.transaction))])
                return AVCTPAssembly(message: nil, diagnostic: d)
            }
            partial = nil
            p.packets += 1
            p.bytes += r.rest()
            partial = p
            if let d = overLimit() { return AVCTPAssembly(message: nil, diagnostic: d) }
            guard h.type == .end else { return AVCTPAssembly() }
            partial = nil
            let message = AVCTPMessage(
                transaction: p.transaction, isCommand: p.isCommand, invalidPID: p.invalidPID, pid: p.pid,
                packets: p.packets, headerLength: 0, payload: p.bytes[...])
            guard p.packets != p.expectedPackets else { return AVCTPAssembly(message: message) }
            let d = Diagnostic(
                AVRCPDiagnostics.fragmentUnexpected,
                "AVCTP message of transaction \(p.transaction) ended after \(p.packets) packets; its start said \(p.expectedPackets)",
                fields: [
                    ("packet_type", .string(h.type.name)), ("transaction", .int(p.transaction)),
                    ("expected", .int(p.expectedPackets)), ("actual", .int(p.packets)),
                ])
            return AVCTPAssembly(message: message, diagnostic: d)
        }
    }

    /// A start or single packet while a message was in progress: the earlier one is dropped.
    mutating func dropPartial(for h: AVCTPPacketHeader) -> Diagnostic? {
        guard let p = partial else { return nil }
        partial = nil
        return Diagnostic(
            AVRCPDiagnostics.fragmentUnexpected,
            "AVCTP \(h.type.name) packet while a message of transaction \(p.transaction) was in progress (\(p.packets) of \(p.expectedPackets) packets); its \(p.bytes.count) bytes are dropped",
            fields: [("packet_type", .string(h.type.name)), ("transaction", .int(p.transaction))])
    }

    mutating func overLimit() -> Diagnostic? {
        guard let p = partial, p.bytes.count > Self.limit else { return nil }
        partial = nil
        return Diagnostic(
            AVRCPDiagnostics.fragmentLimit,
            "AVCTP message of transaction \(p.transaction) reached \(p.bytes.count) bytes, past the bound of \(Self.limit); it is dropped",
            fields: [("have", .int(p.bytes.count)), ("limit", .int(Self.limit))])
    }

    static func malformed(need: Int, have: Int, type: AVCTPPacketType?) -> AVCTPAssembly {
        let what = type.map { "AVCTP \($0.name) packet" } ?? "AVCTP packet"
        let d = Diagnostic(
            AVRCPDiagnostics.avctpMalformed, "\(what) of \(have) bytes, shorter than its \(need)-byte header",
            fields: [("have", .int(have)), ("need", .int(need))])
        return AVCTPAssembly(message: nil, diagnostic: d)
    }
}
