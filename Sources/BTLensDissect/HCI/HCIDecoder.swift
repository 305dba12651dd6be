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
enum HCIEventParameters {
    case commandComplete, commandStatus, connectionComplete, connectionRequest, disconnectionComplete
    case synchronousConnectionComplete
    /// Encryption Change and Encryption Change V2.
    case encryptionChange
    case encryptionKeyRefreshComplete, roleChange, numberOfCompletedPackets, leMeta
    /// Remote Name Request Complete: the status, the address and, after a success, the name.
    case remoteName
    /// Only a status, the first parameter, is shown.
    case status
    case none
}

/// How an LE Meta subevent's parameters are read (the decoder column of `LESubeventCode.definitions`).
enum LESubeventParameters {
    case connectionComplete
    /// The enhanced completions (V1 and V2): a connection complete with resolvable addresses.
    case enhancedConnectionComplete
    case advertisingReport, extendedAdvertisingReport, connectionUpdateComplete, dataLengthChange, phyUpdateComplete
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
        do {
            switch opcode.parameters {
            case .createConnection:
                let a = try BDAddr(&p)
                out.info.fields = [("address", .string(a.description))]
                out.effect = .hostConnects(a)
            case .disconnect:
                let handle = try p.u16le() & 0x0fff
                let reason = HCIErrorCode(rawValue: try p.u8())
                out.info.fields = [("handle", .hex(handle)), ("reason", .string(reason.name))]
            case .leCreateConnection:
                try p.skip(5)
                let type = try p.u8()
                let a = try BDAddr(&p)
                out.info.fields = [("address", .string(a.description)), ("address_type", .int(type))]
                out.effect = .hostConnects(a)
            case .leExtendedCreateConnection:
                try p.skip(2)
                let type = try p.u8()
                let a = try BDAddr(&p)
                out.info.fields = [("address", .string(a.description)), ("address_type", .int(type))]
                out.effect = .hostConnects(a)
            case .createConnectionCancel:
                out.effect = .hostCancels
            case .writeLocalName:
                out.info.fields = [("local_name", .string(name(p.rest())))]
            case .readBufferSize, .leReadBufferSize, .readLocalName, .none:
                break
            }
        } catch {
            out.diagnostics.append(malformed(opcode.name, error))
        }
        return out
    }

    static func event(_ payload: ArraySlice<UInt8>, truncated: Bool) -> HCIDecoded<HCIEventInfo>? {
        var r = ByteReader(payload)
        guard let raw = try? r.u8(), let plen = try? r.u8() else { return nil }
        let code = HCIEventCode(rawValue: raw)
        var out = HCIDecoded(
            info: HCIEventInfo(code: code, subevent: nil, parameterLength: Int(plen), fields: []),
            effect: nil)
        out.diagnostics += lengthCheck(code.name, declared: Int(plen), present: r.remaining, truncated: truncated)
        var p = ByteReader(r.rest().prefix(Int(plen)))
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
            let address = try BDAddr(&p)
            out.info.fields = [("address", .string(address.description))]
            out.effect = .peerRequests(address)
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
        case .remoteName:
            // §7.7.7: after an error the name is not read.
            let status = HCIErrorCode(rawValue: try p.u8())
            out.info.fields = [("status", .string(status.name)), ("address", .string(try BDAddr(&p).description))]
            guard status.isSuccess else { return }
            out.info.fields.append(("remote_name", .string(name(p.rest()))))
        case .numberOfCompletedPackets: try numberOfCompletedPackets(&p, &out)
        case .leMeta: try decodeLEMeta(&p, &out)
        case .status:
            if let status = p.peek() { out.info.fields = [("status", .string(HCIErrorCode(rawValue: status).name))] }
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
        guard status.isSuccess else {
            if opcode.parameters == .createConnectionCancel { out.effect = .cancelRefused }
            return
        }
        try p.skip(1)
        if opcode.parameters == .readLocalName { out.info.fields.append(("local_name", .string(name(p.rest())))) }
        out.effect = try bufferCount(opcode, &p)
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

    private static func decodeLEMeta(_ p: inout ByteReader, _ out: inout HCIDecoded<HCIEventInfo>) throws(ShortRead) {
        let sub = LESubeventCode(rawValue: try p.u8())
        out.info.subevent = sub
        switch sub.parameters ?? .none {
        case .connectionComplete: try leConnectionComplete(&p, &out, enhanced: false)
        case .enhancedConnectionComplete: try leConnectionComplete(&p, &out, enhanced: true)
        case .advertisingReport:
            let n = try p.u8()
            var reports: [AdvertisingReport] = []
            for _ in 0..<n {
                try p.skip(2)
                let address = try BDAddr(&p)
                let data = try p.bytes(Int(try p.u8()))
                reports.append(AdvertisingReport(address: address, rssi: Int8(bitPattern: try p.u8()), data: data))
            }
            advertising(n, reports, &out)
        case .extendedAdvertisingReport:
            let n = try p.u8()
            var reports: [AdvertisingReport] = []
            for _ in 0..<n {
                try p.skip(3)
                let address = try BDAddr(&p)
                try p.skip(4)
                let rssi = Int8(bitPattern: try p.u8())
                try p.skip(9)
                reports.append(AdvertisingReport(address: address, rssi: rssi, data: try p.bytes(Int(try p.u8()))))
            }
            advertising(n, reports, &out)
        case .connectionUpdateComplete:
            let status = HCIErrorCode(rawValue: try p.u8())
            let handle = try p.u16le() & 0x0fff
            let interval = try p.u16le()
            let latency = try p.u16le()
            let timeout = try p.u16le()
            out.info.fields = [
                ("status", .string(status.name)), ("handle", .hex(handle)),
                ("interval_ms", .decimal(Int64(interval) * 125, scale: 2)),
                ("latency", .int(latency)), ("timeout_ms", .int(Int(timeout) * 10)),
            ]
            let parameters = Lifecycle.Parameters(interval: interval, latency: latency, timeout: timeout)
            out.effect = .parametersUpdated(status: status, handle: handle, parameters)
        case .dataLengthChange:
            let handle = try p.u16le() & 0x0fff
            let tx = try p.u16le()
            try p.skip(2)
            let rx = try p.u16le()
            out.info.fields = [("handle", .hex(handle)), ("max_tx_octets", .int(tx)), ("max_rx_octets", .int(rx))]
            out.effect = .dataLengthChanged(handle: handle, tx: Int(tx), rx: Int(rx))
        case .phyUpdateComplete:
            let status = HCIErrorCode(rawValue: try p.u8())
            let handle = try p.u16le() & 0x0fff
            let tx = try p.u8()
            let rx = try p.u8()
            out.info.fields = [
                ("status", .string(status.name)), ("handle", .hex(handle)),
                ("tx_phy", .int(tx)), ("rx_phy", .int(rx)),
            ]
            out.effect = .phyUpdated(status: status, handle: handle, tx: tx, rx: rx)
        case .none:
            break
        }
    }

    /// LE Connection Complete, and the enhanced ones, which add 12 bytes of resolvable addresses.
    private static func leConnectionComplete(
        _ p: inout ByteReader, _ out: inout HCIDecoded<HCIEventInfo>,
        enhanced: Bool
    ) throws(ShortRead) {
        let status = HCIErrorCode(rawValue: try p.u8())
        let handle = try p.u16le() & 0x0fff
        let role = try p.u8()
        let addressType = try p.u8()
        let address = try BDAddr(&p)
        out.info.fields = [
            ("status", .string(status.name)), ("handle", .hex(handle)),
            ("role", .string(role == 0 ? "central" : "peripheral")),
            ("address", .string(address.description)), ("address_type", .int(addressType)),
        ]
        if enhanced { try p.skip(12) }
        var parameters: Lifecycle.Parameters?
        if let interval = try? p.u16le() {
            out.info.fields.append(("interval_ms", .decimal(Int64(interval) * 125, scale: 2)))
            if let latency = try? p.u16le(), let timeout = try? p.u16le() {
                parameters = Lifecycle.Parameters(interval: interval, latency: latency, timeout: timeout)
                out.info.fields += [("latency", .int(latency)), ("timeout_ms", .int(Int(timeout) * 10))]
            }
        }
        out.effect = .completed(
            status: status, handle: handle, address: address, addressType: addressType,
            transport: .le, role: role == 0 ? .central : .peripheral, parameters: parameters)
    }

    private static func advertising(_ n: UInt8, _ reports: [AdvertisingReport], _ out: inout HCIDecoded<HCIEventInfo>) {
        let addresses = reports.map(\.address.description).joined(separator: " ")
        out.info.fields = [("reports", .int(n)), ("addresses", .string(addresses))]
        out.effect = .advertising(reports)
    }

    /// The ACL buffer count a Read Buffer Size completion reports (Core Vol 4, Part E, §7.4.5, §7.8.2, §7.8.93).
    /// A device name parameter: 248 bytes, UTF-8, ended by a NUL when shorter (§7.3.11).
    private static func name(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix(248).prefix { $0 != 0 }, as: UTF8.self)
    }

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
