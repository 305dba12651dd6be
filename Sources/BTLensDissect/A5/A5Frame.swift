import BTLensCore

/// One A5-header frame: magic 0xA5, version, command, sequence, flags, length N, N payload bytes,
/// checksum = sum of all bytes before it, mod 256 (a5-protocol.md).
public struct A5Frame: Sendable, Equatable {
    public static let magic: UInt8 = 0xa5
    public static let headerLength = 6
    /// Header, 255 payload bytes and the checksum.
    public static let maxLength = headerLength + 255 + 1

    public var version: UInt8
    public var command: UInt8
    public var sequence: UInt8
    public var flags: UInt8
    public var payload: [UInt8]
    /// The checksum byte carried by the frame.
    public var checksum: UInt8
    /// The checksum the frame's bytes call for.
    public var expectedChecksum: UInt8

    public var checksumOK: Bool { checksum == expectedChecksum }
    public var length: Int { Self.headerLength + payload.count + 1 }

    /// The sum of `bytes`, mod 256.
    public static func checksum<C: Collection>(_ bytes: C) -> UInt8 where C.Element == UInt8 {
        bytes.reduce(0) { $0 &+ $1 }
    }

    /// The wire bytes of a frame, checksum included (for tests and capture builders).
    public static func encode(command: UInt8, sequence: UInt8, flags: UInt8 = 0, payload: [UInt8],
                              version: UInt8 = 1) -> [UInt8] {
        var bytes: [UInt8] = [magic, version, command, sequence, flags, UInt8(truncatingIfNeeded: payload.count)]
        bytes += payload
        bytes.append(checksum(bytes))
        return bytes
    }
}

/// An A5 frame as an event: the frame and the stream it came from.
public struct A5FrameInfo: Sendable {
    public var frame: A5Frame
    /// `att` or `iap2`.
    public var transport: String
    /// The characteristic value handle (ATT).
    public var attHandle: UInt16?
    public var uuid: BluetoothUUID?
    /// The External Accessory session and its protocol string (iAP2).
    public var eaSession: UInt16? = nil
    public var protocolName: String? = nil
}

public enum A5Diagnostics {
    public static let checksumBad = DiagnosticKind(
        "a5.checksum.bad", .error, "A frame's checksum byte differs from the sum of its bytes; the frame is still shown.")
    public static let sequenceGap = DiagnosticKind(
        "a5.sequence.gap", .warning, "A frame's sequence number skips ahead of the one expected: frames are missing.")
    public static let sequenceDuplicate = DiagnosticKind(
        "a5.sequence.duplicate", .warning, "A frame repeats the sequence number of the frame before it.")
    public static let resync = DiagnosticKind(
        "a5.resync", .warning, "Bytes that do not form a frame were skipped before the next plausible frame.")
    public static let truncated = DiagnosticKind(
        "a5.truncated", .warning, "The stream ended (capture end, disconnection or a capture cut) inside a frame.")
    public static let versionUnknown = DiagnosticKind(
        "a5.version.unknown", .note, "A frame with a version other than 0x01; it is decoded as version 1.")

    public static let all = [checksumBad, sequenceGap, sequenceDuplicate, resync, truncated, versionUnknown]
}
