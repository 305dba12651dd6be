import BTLensCore

public enum IAP2Diagnostics {
    public static let headerChecksum = DiagnosticKind(
        "iap2.checksum.header", .error,
        "An iAP2 packet header whose checksum fails; its length cannot be trusted, so the framer resyncs.")
    public static let payloadChecksum = DiagnosticKind(
        "iap2.checksum.payload", .error, "An iAP2 packet payload whose checksum fails; the packet is still decoded.")
    public static let resync = DiagnosticKind(
        "iap2.resync", .warning, "Bytes in an iAP2 stream that form no packet were skipped.")
    public static let truncated = DiagnosticKind(
        "iap2.truncated", .warning, "The stream ended inside an iAP2 packet.")
    public static let sequenceGap = DiagnosticKind(
        "iap2.sequence.gap", .warning, "A packet's PSN skips ahead: packets were not captured (or reordered).")
    public static let retransmission = DiagnosticKind(
        "iap2.retransmission", .note, "A packet with the PSN, session and payload of an earlier one: a retransmission.")
    public static let duplicate = DiagnosticKind(
        "iap2.duplicate", .note,
        "A packet captured twice, byte for byte, sooner than the retransmission timeout: a capture-level duplicate.")
    public static let psnReuse = DiagnosticKind(
        "iap2.sequence.reuse", .warning,
        "A PSN seen before with a different payload: a new link without a captured SYN, or a long capture gap.")
    public static let controlMalformed = DiagnosticKind(
        "iap2.control.malformed", .error, "A control-session message whose length or parameters do not add up.")

    public static let all = [
        headerChecksum, payloadChecksum, resync, truncated, sequenceGap, retransmission, duplicate, psnReuse,
        controlMalformed,
    ]
}

/// An iAP2 link-layer packet: FF 5A, length (u16 BE, whole packet), control, PSN, PAN, session,
/// header checksum; then payload and payload checksum when length > 9. Both checksums make the
/// covered bytes sum to 0 mod 256.
public struct IAP2LinkPacket: Sendable, Equatable {
    public static let headerLength = 9
    /// The session types a SYN's session entries name, by number (docs/protocols/iap2.md).
    public static let sessionTypes = ["control", "file transfer", "external accessory"]
    /// File transfer datagram types, by the low 4 bits of the datagram's control byte.
    public static let fileTransferTypes = ["Data", "Start", "Cancel", "Pause", "Setup", "Success", "Failure"]

    public var control: UInt8
    public var psn: UInt8
    public var pan: UInt8
    public var session: UInt8
    public var payload: [UInt8]
    public var payloadChecksum: UInt8?
    public var expectedPayloadChecksum: UInt8?

    public var payloadChecksumOK: Bool { payloadChecksum == expectedPayloadChecksum }

    public var kind: IAP2PacketKind {
        switch control {
        case 0x80: return .syn
        case 0xc0: return .synAck
        case 0x40: return payload.isEmpty ? .ack : .data
        case 0x60: return .eak
        case 0x10: return .rst
        case 0x08: return .slp
        default: return .control(control)
        }
    }

    /// The two's complement of the byte sum: what makes the covered bytes sum to 0.
    public static func checksum<C: Collection>(_ bytes: C) -> UInt8 where C.Element == UInt8 {
        0 &- bytes.reduce(0) { $0 &+ $1 }
    }

    /// Wire bytes of a packet (for tests and capture builders).
    public static func encode(control: UInt8, psn: UInt8, pan: UInt8, session: UInt8, payload: [UInt8]) -> [UInt8] {
        let length = headerLength + (payload.isEmpty ? 0 : payload.count + 1)
        var header: [UInt8] = [
            0xff, 0x5a, UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length), control, psn, pan,
            session,
        ]
        header.append(checksum(header))
        return payload.isEmpty ? header : header + payload + [checksum(payload)]
    }
}

/// Cuts an iAP2 byte stream into detect bytes, iAP1 frames and link packets, one step at a time.
/// The buffer holds at most one packet (65,535 bytes) plus the last chunk appended.
public struct IAP2Framer: Sendable {
    public enum Item: Sendable, Equatable {
        /// `FF 55 02 00 EE 10`: "I speak iAP2".
        case detect
        /// Another iAP1 frame (e.g. `FF 55 04 00 02 04 EE 08`, the iAP1-only answer).
        case iap1([UInt8])
        case packet(IAP2LinkPacket)
        /// Bytes skipped because they form no packet.
        case skipped(Int)
        /// A header whose checksum failed (the framer moved one byte on).
        case badHeader
    }

    public static let detectBytes: [UInt8] = [0xff, 0x55, 0x02, 0x00, 0xee, 0x10]

    private var buffer = StreamBuffer()
    private var skipped = 0

    public init() {}

    public var buffered: Int { buffer.count }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 { buffer.append(bytes) }

    /// True when `bytes` begin like iAP2 (detect bytes, or a link header whose checksum holds).
    public static func looksLikeIAP2(_ bytes: ArraySlice<UInt8>) -> Bool {
        if bytes.starts(with: detectBytes) { return true }
        guard bytes.count >= IAP2LinkPacket.headerLength, bytes.starts(with: [0xff, 0x5a]) else { return false }
        return IAP2LinkPacket.checksum(bytes.prefix(8)) == bytes[bytes.startIndex + 8]
    }

    /// True when `bytes` are too few to judge by `looksLikeIAP2` but may yet begin like iAP2.
    public static func mayLookLikeIAP2(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.count < IAP2LinkPacket.headerLength
            && (detectBytes.starts(with: bytes) || [0xff, 0x5a].starts(with: bytes.prefix(2)))
    }

    public mutating func next() -> Item? {
        while !buffer.isEmpty {
            guard buffer[0] == 0xff else {
                let junk = buffer.firstIndex(of: 0xff) ?? buffer.count
                skipped += junk
                buffer.consume(junk)
                continue
            }
            guard buffer.count >= 2 else { return nil }
            if buffer[1] == 0x55 {
                // iAP1: FF 55 LEN (lingo, command, data: LEN bytes) checksum.
                guard buffer.count >= 3 else { return nil }
                let total = Int(buffer[2]) + 4
                guard buffer.count >= total else { return nil }
                if let s = flushSkipped() { return s }
                let frame = Array(buffer.bytes(0..<total))
                buffer.consume(total)
                return frame == Self.detectBytes ? .detect : .iap1(frame)
            }
            guard buffer[1] == 0x5a else {
                skipped += 1
                buffer.consume(1)
                continue
            }
            guard buffer.count >= IAP2LinkPacket.headerLength else { return nil }
            guard IAP2LinkPacket.checksum(buffer.bytes(0..<8)) == buffer[8] else {
                if let s = flushSkipped() { return s }
                buffer.consume(1)
                skipped += 1
                return .badHeader
            }
            let length = Int(buffer[2]) << 8 | Int(buffer[3])
            guard length >= IAP2LinkPacket.headerLength else {
                skipped += 1
                buffer.consume(1)
                continue
            }
            guard buffer.count >= length else { return nil }
            if let s = flushSkipped() { return s }
            var packet = IAP2LinkPacket(
                control: buffer[4], psn: buffer[5], pan: buffer[6], session: buffer[7],
                payload: [], payloadChecksum: nil, expectedPayloadChecksum: nil)
            if length > IAP2LinkPacket.headerLength {
                let payload = Array(buffer.bytes(9..<length - 1))
                packet.payload = payload
                packet.payloadChecksum = buffer[length - 1]
                packet.expectedPayloadChecksum = IAP2LinkPacket.checksum(payload)
            }
            buffer.consume(length)
            return .packet(packet)
        }
        // Skipped bytes are said just before the next item, so the same bytes give the same report
        // however they are split; at the end of the stream `skippedBytes` holds them.
        return nil
    }

    /// Junk skipped since the last item, not yet reported.
    public var skippedBytes: Int { skipped }

    private mutating func flushSkipped() -> Item? {
        guard skipped > 0 else { return nil }
        defer { skipped = 0 }
        return .skipped(skipped)
    }

    /// A packet begun but not finished: (have, need).
    public var partial: (have: Int, need: Int)? {
        guard buffered > 0 else { return nil }
        if buffered >= 4, buffer[1] == 0x5a {
            return (buffered, max(Int(buffer[2]) << 8 | Int(buffer[3]), IAP2LinkPacket.headerLength))
        }
        return (buffered, buffered >= 3 && buffer[1] == 0x55 ? Int(buffer[2]) + 4 : IAP2LinkPacket.headerLength)
    }
}

/// What an iAP2 item on a link is: a link packet by its control bits (SYN, SYN+ACK, ACK, DATA, EAK,
/// RST, SLP, or other bits), the detect bytes, an iAP1 frame, or a file transfer datagram.
public enum IAP2PacketKind: Sendable, Equatable, CustomStringConvertible {
    case syn, synAck, ack, data, eak, rst, slp
    case control(UInt8)
    case detect, iap1, fileTransfer

    /// As the timeline writes it.
    public var name: String {
        switch self {
        case .syn: return "SYN"
        case .synAck: return "SYN+ACK"
        case .ack: return "ACK"
        case .data: return "DATA"
        case .eak: return "EAK"
        case .rst: return "RST"
        case .slp: return "SLP"
        case .control(let bits): return "control \(Hex.value(bits, width: 2))"
        case .detect: return "detect"
        case .iap1: return "iAP1"
        case .fileTransfer: return "file transfer"
        }
    }

    public var description: String { name }
}
