import BTLensCore

/// RFCOMM, SDP, iAP2, SMP, the profiles and app logs.
extension EventFields {
    private static let frameOn = FieldDeclarer<RFCOMMInfo> { e in
        if case .rfcomm(let f) = e.body { return f }
        return nil
    }

    static let rfcomm: [EventField] = [
        EventField.connection,
        frameOn("dlci", .integer, "the data link connection identifier") { .int(Int64($0.dlci)) },
        frameOn("frame", .string, "the frame type: SABM, UA, DM, DISC, UIH or Unknown (0x..)") {
            .string($0.frame.name)
        },
        frameOn("poll_final", .boolean, "the P/F bit") { .bool($0.pollFinal) },
        frameOn("credits", .integer, "credits given") { .integer($0.credits) },
        frameOn("length", .integer, "the information field's length") { .int(Int64($0.length)) },
        frameOn("mux", .string, "the multiplexer command's name, on DLCI 0") { .text($0.mux) },
    ]

    private static let sdpOn = FieldDeclarer<SDPInfo> { e in
        if case .sdp(let s) = e.body { return s }
        return nil
    }

    static let sdp: [EventField] = [
        EventField.connection,
        sdpOn("pdu", .string, "the PDU's name") { .string($0.pdu) },
        sdpOn("transaction", .integer, "the transaction id") { .int(Int64($0.transaction)) },
        sdpOn.nested(
            "services", .array, "the service records", members: ["name", "classes", "rfcomm_channel", "iap2"]
        ) { s, rest in
            guard let member = rest.first, rest.count == 1 else {
                return rest.isEmpty ? .list(s.services.map { _ in .object }) : nil
            }
            return .list(s.services.compactMap { service(member, of: $0) })
        },
    ]

    private static func service(_ member: String, of s: SDPService) -> FieldReading? {
        switch member {
        case "name": return .text(s.name)
        case "classes": return .list(s.classes.map { .string($0) })
        case "rfcomm_channel": return .integer(s.rfcommChannel)
        case "iap2": return .bool(s.isIAP2)
        default: return nil
        }
    }

    private static let packet = FieldDeclarer<IAP2PacketInfo> { e in
        if case .iap2(let p) = e.body { return p }
        return nil
    }

    static let iap2: [EventField] = [
        EventField.connection,
        packet("kind", .string, "the link packet's kind (SYN, ACK, DATA, …), detect, iAP1 or file transfer") {
            .string($0.kind.name)
        },
        packet("psn", .integer, "the packet sequence number") { .integer($0.psn) },
        packet("pan", .integer, "the packet acknowledged") { .integer($0.pan) },
        packet("session", .integer, "the session id") { .integer($0.session) },
        packet("session_type", .string, "the session's type, from the SYN") { .text($0.sessionType) },
        packet("payload_length", .integer, "the payload's length") { .int(Int64($0.payloadLength)) },
        packet("detail", .string, "what the packet says besides") { .text($0.detail) },
    ]

    private static let control = FieldDeclarer<IAP2ControlInfo> { e in
        if case .iap2Control(let c) = e.body { return c }
        return nil
    }

    static let iap2Control: [EventField] = [
        EventField.connection,
        control("message_id", .integer, "the control message's id") { .int(Int64($0.id)) },
        control("name", .string, "the control message's name") { .string($0.name) },
    ]

    private static let identified = FieldDeclarer<IAP2Identification> { e in
        if case .iap2Identification(let i) = e.body { return i }
        return nil
    }

    static let identification: [EventField] = [
        EventField.connection,
        identified("name", .string, "the accessory's name") { .string($0.name) },
        identified("model", .string, "its model") { .string($0.model) },
        identified("manufacturer", .string, "its manufacturer") { .string($0.manufacturer) },
        identified("serial", .string, "its serial number") { .string($0.serial) },
        identified("firmware", .string, "its firmware version") { .string($0.firmware) },
        identified("hardware", .string, "its hardware version") { .string($0.hardware) },
        identified.nested("protocols", .array, "its EA protocols", members: ["id", "name"]) { i, rest in
            switch rest {
            case []: return .list(i.protocols.map { _ in .object })
            case ["id"]: return .list(i.protocols.map { .int(Int64($0.id)) })
            case ["name"]: return .list(i.protocols.map { .string($0.name) })
            default: return nil
            }
        },
    ]

    private static let smpOn = FieldDeclarer<SMPInfo> { e in
        if case .smp(let p) = e.body { return p }
        return nil
    }

    static let smp: [EventField] = [
        EventField.connection,
        smpOn("code", .integer, "the SMP code") { .int(Int64($0.code)) },
        smpOn("name", .string, "the PDU's name") { .string($0.name) },
    ]

    private static let message = FieldDeclarer<ProfileMessage> { e in
        if case .profile(let m) = e.body { return m }
        return nil
    }

    /// Every profile's messages (`avdtp`, `avrcp`, `hfp`, …).
    static let profile: [EventField] = [
        EventField.connection,
        message("name", .string, "the signal, PDU, operation or AT command") { .string($0.name) },
    ]

    private static let line = FieldDeclarer<AppLogEntry> { e in
        if case .log(let l) = e.body { return l }
        return nil
    }

    static let log: [EventField] = [
        line("message", .string, "the log line's message") { .string($0.message) }
    ]
}
