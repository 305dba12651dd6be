import BTLensCore

public enum RFCOMMDiagnostics {
    public static let fcsBad = DiagnosticKind(
        "rfcomm.fcs.bad", .error,
        "An RFCOMM frame's FCS differs from the CRC of its header; its data is still passed on.")
    public static let malformed = DiagnosticKind(
        "rfcomm.malformed", .error, "An RFCOMM frame is shorter than its header and length field say.")

    public static let guessWithdrawn = DiagnosticKind(
        "rfcomm.channel.guess_withdrawn", .note,
        "A channel taken for iAP2 (by its SDP record or its first bytes) whose data is not iAP2: the guess is withdrawn and the channel's bytes, from its start, are shown as RFCOMM data."
    )

    public static let all = [fcsBad, malformed, guessWithdrawn]
}

/// One RFCOMM frame (TS 07.10 as profiled by the RFCOMM specification): address, control,
/// length (1 or 2 bytes), an optional credit byte, information, FCS.
public struct RFCOMMFrame: Sendable {
    public enum FrameType: UInt8, Sendable {
        case sabm = 0x2f
        case ua = 0x63
        case dm = 0x0f
        case disc = 0x43
        case uih = 0xef

        public var name: String {
            switch self {
            case .sabm: return "SABM"
            case .ua: return "UA"
            case .dm: return "DM"
            case .disc: return "DISC"
            case .uih: return "UIH"
            }
        }
    }

    public var dlci: UInt8
    public var commandResponse: Bool
    /// nil for a control value that is none of the five frame types.
    public var type: FrameType?
    public var control: UInt8
    public var pollFinal: Bool
    public var credits: UInt8?
    public var information: ArraySlice<UInt8>
    public var fcs: UInt8
    public var expectedFCS: UInt8

    /// The server channel a DLCI belongs to.
    public var channel: UInt8 { dlci >> 1 }

    public static func parse(_ bytes: ArraySlice<UInt8>) throws(ShortRead) -> RFCOMMFrame {
        var r = ByteReader(bytes)
        let address = try r.u8()
        let control = try r.u8()
        let first = try r.u8()
        var length = Int(first >> 1)
        if first & 1 == 0 { length |= Int(try r.u8()) << 7 }
        let headerLength = r.offset
        let type = FrameType(rawValue: control & ~0x10)
        let pollFinal = control & 0x10 != 0
        let dlci = address >> 2
        var credits: UInt8?
        // With credit-based flow control, a UIH with P/F set on a data channel carries credits first.
        if type == .uih, pollFinal, dlci != 0 { credits = try r.u8() }
        let information = try r.bytes(length)
        let fcs = try r.u8()
        // The FCS covers address and control, and the length too for every frame but UIH.
        let covered = bytes.prefix(type == .uih ? 2 : headerLength)
        return RFCOMMFrame(
            dlci: dlci, commandResponse: address & 0x02 != 0, type: type, control: control,
            pollFinal: pollFinal, credits: credits, information: information, fcs: fcs,
            expectedFCS: Self.fcs(covered))
    }

    /// Why `bytes` are not exactly one RFCOMM frame of a known type with a valid FCS; nil when they are.
    public static func misfit(_ bytes: ArraySlice<UInt8>) -> String? {
        let frame: RFCOMMFrame
        do {
            frame = try parse(bytes)
        } catch {
            return "it needs \(error.needed) more bytes at offset \(error.offset)"
        }
        guard frame.type != nil else {
            return "its control byte \(Hex.value(frame.control, width: 2)) is no RFCOMM frame type"
        }
        guard frame.fcs == frame.expectedFCS else {
            return "its FCS is \(Hex.value(frame.fcs, width: 2)), expected \(Hex.value(frame.expectedFCS, width: 2))"
        }
        let extra = bytes.endIndex - frame.information.endIndex - 1
        return extra == 0 ? nil : "\(extra) bytes follow its FCS"
    }

    static let crcTable: [UInt8] = (0..<256).map { i in
        var c = UInt8(i)
        for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xe0 : c >> 1 }
        return c
    }

    /// TS 07.10 FCS: CRC-8 (x⁸+x²+x+1, reflected), initial 0xFF, ones' complement of the result.
    public static func fcs<C: Collection>(_ bytes: C) -> UInt8 where C.Element == UInt8 {
        0xff - bytes.reduce(UInt8(0xff)) { crcTable[Int($0 ^ $1)] }
    }
}

/// Multiplexer control commands carried in UIH frames on DLCI 0.
public struct RFCOMMMuxCommand: Sendable {
    public var type: UInt8
    public var isCommand: Bool
    public var values: ArraySlice<UInt8>

    public var name: String {
        let names: [UInt8: String] = [
            0x20: "Parameter Negotiation (PN)", 0x08: "Test", 0x28: "Flow Control On (FCon)",
            0x18: "Flow Control Off (FCoff)", 0x38: "Modem Status Command (MSC)", 0x04: "Non Supported Command (NSC)",
            0x24: "Remote Port Negotiation (RPN)", 0x14: "Remote Line Status (RLS)", 0x10: "Power Saving Control (PSC)",
            0x30: "Multiplexer Close Down (CLD)",
        ]
        return names[type] ?? "Unknown (\(Hex.value(type, width: 2)))"
    }

    public static func parse(_ bytes: ArraySlice<UInt8>) throws(ShortRead) -> RFCOMMMuxCommand {
        var r = ByteReader(bytes)
        let header = try r.u8()
        let first = try r.u8()
        var length = Int(first >> 1)
        if first & 1 == 0 { length |= Int(try r.u8()) << 7 }
        return RFCOMMMuxCommand(type: header >> 2, isCommand: header & 0x02 != 0, values: try r.bytes(length))
    }
}

/// An RFCOMM frame as an event.
public struct RFCOMMInfo: Sendable {
    public var dlci: UInt8
    public var frame: RFCOMMFrameKind
    public var pollFinal: Bool
    public var credits: UInt8?
    public var length: Int
    public var mux: String?
    public var fields: [(String, FieldValue)] = []
}

/// A frame's type as an event has it: one of the five, or a control value that is none of them.
public enum RFCOMMFrameKind: Sendable, Equatable, CustomStringConvertible {
    case known(RFCOMMFrame.FrameType)
    case unknown(control: UInt8)

    /// As the timeline writes it.
    public var name: String {
        switch self {
        case .known(let t): return t.name
        case .unknown(let control): return "Unknown (\(Hex.value(control, width: 2)))"
        }
    }

    public var description: String { name }
}
