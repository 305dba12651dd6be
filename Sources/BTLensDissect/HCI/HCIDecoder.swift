import BTLensCore

/// Diagnostics raised by the HCI layer.
public enum HCIDiagnostics {
    public static let malformed = DiagnosticKind(
        "hci.malformed", .error, "An HCI packet is shorter than its header or its fields need.")
    public static let lengthMismatch = DiagnosticKind(
        "hci.length_mismatch", .warning, "An HCI packet's length field disagrees with the bytes in the record.")
    public static let connectionInferred = DiagnosticKind(
        "hci.connection.inferred", .note,
        "Traffic on a handle whose connection was made before the capture began; the connection is inferred.")
    public static let connectionReplaced = DiagnosticKind(
        "hci.connection.replaced", .warning, "A Connection Complete reuses a handle that was never disconnected.")
    public static let unknownHandleClosed = DiagnosticKind(
        "hci.disconnect.unknown_handle", .note, "A Disconnection Complete for a handle not seen before.")

    public static let all = [malformed, lengthMismatch, connectionInferred, connectionReplaced, unknownHandleClosed]
}

/// What an HCI packet changes in the connection table.
enum HCIConnectionEffect {
    case hostConnects(BDAddr)
    case peerRequests(BDAddr)
    /// Create Connection Cancel or LE Create Connection Cancel: the attempt ends with status 0x02.
    case hostCancels
    /// The controller refused the cancel (no attempt pending): no completion will say cancelled.
    case cancelRefused
    case completed(
        status: HCIErrorCode, handle: UInt16, address: BDAddr, addressType: UInt8?, transport: Transport,
        role: Role, parameters: Lifecycle.Parameters?)
    case disconnected(status: HCIErrorCode, handle: UInt16, reason: HCIErrorCode)
    case roleChanged(address: BDAddr, role: Role)
    case parametersUpdated(status: HCIErrorCode, handle: UInt16, Lifecycle.Parameters)
    case phyUpdated(status: HCIErrorCode, handle: UInt16, tx: UInt8, rx: UInt8)
    case dataLengthChanged(handle: UInt16, tx: Int, rx: Int)
    /// Encryption Change (enabled or not) or Key Refresh Complete (`enabled` nil).
    case encryption(status: HCIErrorCode, handle: UInt16, enabled: Bool?)
    /// Number Of Completed Packets: controller buffers freed per handle.
    case completedPackets([(handle: UInt16, count: Int)])
    /// The controller's ACL buffers (LE or shared), from a Read Buffer Size command's completion.
    case bufferCount(le: Bool, Int)
    case advertising([AdvertisingReport])
    /// A Synchronous Connection Complete that succeeded: an (e)SCO audio link to `address`.
    case audioLink(handle: UInt16, address: BDAddr, linkType: UInt8, airMode: UInt8)
}

struct HCIDecoded<Info> {
    var info: Info
    var effect: HCIConnectionEffect?
    var diagnostics: [Diagnostic] = []
}

/// How an event's parameters are read (the decoder column of `HCIEventCode.definitions`).
enum HCIEventParameters: Equatable {
    case commandComplete, commandStatus, connectionComplete, connectionRequest, disconnectionComplete
    case synchronousConnectionComplete
    /// Encryption Change and Encryption Change V2.
    case encryptionChange
    case encryptionKeyRefreshComplete, roleChange, numberOfCompletedPackets, leMeta
    /// Only a status, the first parameter, is shown.
    case status
    case layout([HCIParameter])
    case none
}

/// How an LE Meta subevent's parameters are read (the decoder column of `LESubeventCode.definitions`).
enum LESubeventParameters {
    case connectionComplete
    /// The enhanced completions (V1 and V2): a connection complete with resolvable addresses.
    case enhancedConnectionComplete
    case advertisingReport, extendedAdvertisingReport, connectionUpdateComplete, dataLengthChange, phyUpdateComplete
    case layout([HCIParameter])
    case none
}

/// Decodes HCI command and event packets (Core Specification, Vol 4, Part E, §5.4).
enum HCIDecoder {
    static func command(_ payload: ArraySlice<UInt8>, truncated: Bool) -> HCIDecoded<HCICommandInfo>? {
        var r = ByteReader(payload)
        guard let raw = try? r.u16le(), let plen = try? r.u8() else { return nil }
        let opcode = HCIOpcode(rawValue: raw)
        var out = HCIDecoded(info: HCICommandInfo(opcode: opcode, parameterLength: Int(plen), fields: []), effect: nil)
        out.diagnostics += lengthCheck(opcode.name, declared: Int(plen), present: r.remaining, truncated: truncated)
        var p = ByteReader(r.rest().prefix(Int(plen)))
        if opcode.isVendor { out.info.vendorBytes = p.remaining }
        do {
            switch opcode.parameters {
            case .createConnection:
                var first = p
                out.effect = .hostConnects(try BDAddr(&first))
                try HCIParameter.read(Self.createConnection, &p, into: &out.info.fields)
            case .disconnect:
                let handle = try p.u16le() & 0x0fff
                let reason = HCIErrorCode(rawValue: try p.u8())
                out.info.fields = [("handle", .hex(handle)), ("reason", .string(reason.name))]
            case .leCreateConnection:
                var peer = p
                try peer.skip(6)
                out.effect = .hostConnects(try BDAddr(&peer))
                try HCIParameter.read(Self.leCreateConnection, &p, into: &out.info.fields)
            case .leExtendedCreateConnection:
                try p.skip(2)
                let type = try p.u8()
                let a = try BDAddr(&p)
                out.info.fields = [("address", .string(a.description)), ("address_type", .int(type))]
                out.effect = .hostConnects(a)
            case .createConnectionCancel:
                out.effect = .hostCancels
            case .layout(let layout, _):
                try HCIParameter.read(layout, &p, into: &out.info.fields)
            case .readBufferSize, .leReadBufferSize, .none:
                break
            }
        } catch {
            out.diagnostics.append(malformed(opcode.name, error))
        }
        return out
    }

    /// LE Create Connection (§7.8.12): the peer's address is also what the connection table is told;
    /// the intervals and timeout, with their times, are what the phone asked for.
    static let leCreateConnection: [HCIParameter] = [
        .duration16("scan_interval", .slot), .duration16("scan_window", .slot), .u8("initiator_filter_policy"),
        .u8("address_type"), .address, .u8("own_address_type"), .duration16("interval_min", .connectionInterval),
        .duration16("interval_max", .connectionInterval), .u16("latency"), .duration16("timeout", .tenMilliseconds),
        .duration16("min_ce_length", .slot), .duration16("max_ce_length", .slot),
    ]

    /// Create Connection (§7.1.5); its address is also what the connection table is told.
    static let createConnection: [HCIParameter] = [
        .address, .hex16("packet_type"), .u8("page_scan_repetition_mode"), .reserved(1), .hex16("clock_offset"),
        .u8("allow_role_switch"),
    ]

    static func event(_ payload: ArraySlice<UInt8>, truncated: Bool) -> HCIDecoded<HCIEventInfo>? {
        var r = ByteReader(payload)
        guard let raw = try? r.u8(), let plen = try? r.u8() else { return nil }
        let code = HCIEventCode(rawValue: raw)
        var out = HCIDecoded(
            info: HCIEventInfo(code: code, subevent: nil, parameterLength: Int(plen), fields: []),
            effect: nil)
        out.diagnostics += lengthCheck(code.name, declared: Int(plen), present: r.remaining, truncated: truncated)
        var p = ByteReader(r.rest().prefix(Int(plen)))
        if code.isVendor { out.info.vendorBytes = p.remaining }
        do {
            try decodeEvent(code, &p, &out)
        } catch {
            out.diagnostics.append(malformed(out.info.name, error))
        }
        return out
    }

    private static func decodeEvent(
        _ code: HCIEventCode, _ p: inout ByteReader,
        _ out: inout HCIDecoded<HCIEventInfo>
    ) throws(ShortRead) {
        switch code.parameters ?? .none {
        case .commandComplete: try commandComplete(&p, &out)
        case .commandStatus:
            let status = HCIErrorCode(rawValue: try p.u8())
            _ = try p.u8()
            let opcode = HCIOpcode(rawValue: try p.u16le())
            out.info.fields = [
                ("command", .string(opcode.name)), ("opcode", .hex(opcode.rawValue)),
                ("status", .string(status.name)),
            ]
        case .connectionComplete: try connectionComplete(&p, &out)
        case .synchronousConnectionComplete: try synchronousConnectionComplete(&p, &out)
        case .connectionRequest:
            var first = p
            out.effect = .peerRequests(try BDAddr(&first))
            try HCIParameter.read([.address, .hex24("class_of_device"), .u8("link_type")], &p, into: &out.info.fields)
        case .disconnectionComplete:
            let status = HCIErrorCode(rawValue: try p.u8())
            let handle = try p.u16le() & 0x0fff
            let reason = HCIErrorCode(rawValue: try p.u8())
            out.info.fields = [
                ("status", .string(status.name)), ("handle", .hex(handle)),
                ("reason", .string(reason.name)),
            ]
            out.effect = .disconnected(status: status, handle: handle, reason: reason)
        case .encryptionChange:
            let status = HCIErrorCode(rawValue: try p.u8())
            let handle = try p.u16le() & 0x0fff
            let enabled = try p.u8()
            out.info.fields = [
                ("status", .string(status.name)), ("handle", .hex(handle)),
                ("encryption", .int(enabled)),
            ]
            out.effect = .encryption(status: status, handle: handle, enabled: enabled != 0)
        case .encryptionKeyRefreshComplete:
            let status = HCIErrorCode(rawValue: try p.u8())
            let handle = try p.u16le() & 0x0fff
            out.info.fields = [("status", .string(status.name)), ("handle", .hex(handle))]
            out.effect = .encryption(status: status, handle: handle, enabled: nil)
        case .roleChange: try roleChange(&p, &out)
        case .numberOfCompletedPackets: try numberOfCompletedPackets(&p, &out)
        case .leMeta: try leMeta(&p, &out)
        case .status:
            if let status = p.peek() { out.info.fields = [("status", .string(HCIErrorCode(rawValue: status).name))] }
        case .layout(let layout): try HCIParameter.read(layout, &p, into: &out.info.fields)
        case .none:
            break
        }
    }

    private static func commandComplete(
        _ p: inout ByteReader,
        _ out: inout HCIDecoded<HCIEventInfo>
    ) throws(ShortRead) {
        _ = try p.u8()
        let opcode = HCIOpcode(rawValue: try p.u16le())
        out.info.fields = [("command", .string(opcode.name)), ("opcode", .hex(opcode.rawValue))]
        // Return parameters (§7.7.14) begin with the status for every command but No Operation, which
        // has none. After an error the rest need not be there (§4.5), so they are read only after a
        // success, the same for every opcode.
        guard opcode.rawValue != 0, let status = p.peek().map(HCIErrorCode.init(rawValue:)) else { return }
        out.info.fields.append(("status", .string(status.name)))
        if opcode.isVendor { out.info.vendorBytes = p.remaining - 1 }
        guard status.isSuccess else {
            if opcode.parameters == .createConnectionCancel { out.effect = .cancelRefused }
            return
        }
        try p.skip(1)
        var returned = p
        out.effect = try bufferCount(opcode, &p)
        try HCIParameter.read(opcode.parameters.returns, &returned, into: &out.info.fields)
    }

    private static func connectionComplete(
        _ p: inout ByteReader,
        _ out: inout HCIDecoded<HCIEventInfo>
    ) throws(ShortRead) {
        let status = HCIErrorCode(rawValue: try p.u8())
        let handle = try p.u16le() & 0x0fff
        let address = try BDAddr(&p)
        let linkType = try p.u8()
        out.info.fields = [
            ("status", .string(status.name)), ("handle", .hex(handle)),
            ("address", .string(address.description)), ("link_type", .int(linkType)),
        ]
        if let encryption = p.peek() { out.info.fields.append(("encryption", .int(encryption))) }
        // Link type 1 is ACL; 0 and 2 are (e)SCO and open no ACL connection.
        if linkType == 1 {
            out.effect = .completed(
                status: status, handle: handle, address: address, addressType: nil,
                transport: .bredr, role: .unknown, parameters: nil)
        }
    }

    /// Core Vol 4 Part E §7.7.35: status, handle, address, link type, two timings, two packet
    /// lengths, air mode.
    private static func synchronousConnectionComplete(
        _ p: inout ByteReader, _ out: inout HCIDecoded<HCIEventInfo>
    ) throws(ShortRead) {
        let status = HCIErrorCode(rawValue: try p.u8())
        let handle = try p.u16le() & 0x0fff
        let address = try BDAddr(&p)
        let linkType = try p.u8()
        try p.skip(6)
        let airMode = try p.u8()
        let airModes = ["µ-law", "A-law", "CVSD", "transparent"]
        out.info.fields = [
            ("status", .string(status.name)), ("handle", .hex(handle)), ("address", .string(address.description)),
            ("link_type", .string(linkType == 2 ? "eSCO" : linkType == 0 ? "SCO" : "\(linkType)")),
            ("air_mode", .string(airMode < 4 ? airModes[Int(airMode)] : "\(airMode)")),
        ]
        if status.isSuccess {
            out.effect = .audioLink(handle: handle, address: address, linkType: linkType, airMode: airMode)
        }
    }

    private static func roleChange(_ p: inout ByteReader, _ out: inout HCIDecoded<HCIEventInfo>) throws(ShortRead) {
        let status = HCIErrorCode(rawValue: try p.u8())
        let address = try BDAddr(&p)
        let role = try p.u8()
        out.info.fields = [
            ("status", .string(status.name)), ("address", .string(address.description)),
            ("role", .string(role == 0 ? "central" : "peripheral")),
        ]
        if status.isSuccess { out.effect = .roleChanged(address: address, role: role == 0 ? .central : .peripheral) }
    }

    private static func numberOfCompletedPackets(
        _ p: inout ByteReader,
        _ out: inout HCIDecoded<HCIEventInfo>
    ) throws(ShortRead) {
        let n = try p.u8()
        var parts: [String] = []
        var freed: [(handle: UInt16, count: Int)] = []
        for _ in 0..<n {
            let handle = try p.u16le() & 0x0fff
            let count = try p.u16le()
            parts.append("\(Hex.value(handle, width: 4)):\(count)")
            freed.append((handle, Int(count)))
        }
        out.info.fields = [("completed", .string(parts.joined(separator: " ")))]
        out.effect = .completedPackets(freed)
    }

    /// The ACL buffer count a Read Buffer Size completion reports (Core Vol 4, Part E, §7.4.5, §7.8.2, §7.8.93).
    private static func bufferCount(
        _ opcode: HCIOpcode,
        _ p: inout ByteReader
    ) throws(ShortRead) -> HCIConnectionEffect? {
        switch opcode.parameters {
        case .readBufferSize:
            try p.skip(3)
            return .bufferCount(le: false, Int(try p.u16le()))
        case .leReadBufferSize:
            try p.skip(2)
            let n = Int(try p.u8())
            return n > 0 ? .bufferCount(le: true, n) : nil
        default:
            return nil
        }
    }

    private static func lengthCheck(_ name: String, declared: Int, present: Int, truncated: Bool) -> [Diagnostic] {
        guard declared != present, !(truncated && present < declared) else { return [] }
        return [
            Diagnostic(
                HCIDiagnostics.lengthMismatch,
                "\(name): parameter length says \(declared) bytes, the record holds \(present)",
                fields: [("declared", .int(declared)), ("present", .int(present))])
        ]
    }

    private static func malformed(_ name: String, _ e: ShortRead) -> Diagnostic {
        Diagnostic(
            HCIDiagnostics.malformed,
            "\(name): needs \(e.needed) more bytes at parameter offset \(e.offset), only \(e.available) left",
            fields: [("offset", .int(e.offset)), ("needed", .int(e.needed)), ("available", .int(e.available))],
            packetOffset: e.offset)
    }
}
