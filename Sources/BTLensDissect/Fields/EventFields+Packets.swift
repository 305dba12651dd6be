import BTLensCore

/// HCI, ACL, L2CAP, ATT and GATT events, notes and undecoded bytes.
extension EventFields {
    private static let noted = FieldDeclarer<(category: String, text: String)> { e in
        if case .note(let category, let text) = e.body { return (category, text) }
        return nil
    }

    static let note: [EventField] = [
        noted("category", .string, "dissectors.loaded, follow.restart, or the record's kind") { .string($0.category) },
        noted("text", .string, "the note's text") { .string($0.text) },
    ]

    private static let command = FieldDeclarer<HCICommandInfo> { e in
        if case .hciCommand(let c) = e.body { return c }
        return nil
    }

    static let hciCommand: [EventField] = [
        command("opcode", .integer, "the command's opcode") { .int(Int64($0.opcode.rawValue)) },
        command("name", .string, "the command's name") { .string($0.opcode.name) },
    ]

    private static let hciEventOn = FieldDeclarer<HCIEventInfo> { e in
        if case .hciEvent(let h) = e.body { return h }
        return nil
    }

    static let hciEvent: [EventField] = [
        hciEventOn("code", .integer, "the event code") { .int(Int64($0.code.rawValue)) },
        hciEventOn("subevent", .integer, "an LE Meta event's subevent code") { .integer($0.subevent?.rawValue) },
        hciEventOn("name", .string, "the event's (or subevent's) name") { .string($0.name) },
        EventField.parameter("command", .string, "the command a Command Complete or Status answers"),
    ]

    private static let debugRecord = FieldDeclarer<ControllerDebug> { e in
        if case .hciDebug(let d) = e.body { return d }
        return nil
    }

    static let hciDebug: [EventField] = [
        debugRecord("vendor", .string, "the controller's maker: Qualcomm or MediaTek") { .string($0.vendor.rawValue) },
        debugRecord("kind", .string, "debug log or memory dump") { .string($0.kind.rawValue) },
        debugRecord("acl_header", .integer, "the ACL header's first word (handle and flags), which marks the record") {
            .int(Int64($0.header))
        },
        debugRecord("sequence", .integer, "a Qualcomm memory dump packet's sequence number") { .integer($0.sequence) },
        debugRecord("dump_size", .integer, "the dump's size, in a Qualcomm memory dump's first packet") {
            .integer($0.dumpSize)
        },
        debugRecord("length", .integer, "the data's size, after the ACL header") { .int(Int64($0.length)) },
        debugRecord("bytes", .bytes, "the data's first bytes") { .bytes($0.bytes[...]) },
        debugRecord("bytes_cut", .integer, "how many bytes bytes leaves out") { .int(Int64($0.bytesCut)) },
    ]

    private static let changed = FieldDeclarer<ConnectionChange> { e in
        if case .connection(let c) = e.body { return c }
        return nil
    }

    static let connectionChange: [EventField] = [
        changed("change", .string, "opened, closed, inferred, failed or cancelled") { .string($0.change.rawValue) },
        changed("connection", .integer, "the HCI connection handle") { .int(Int64($0.info.key.handle)) },
        changed("controller", .integer, "the controller's index") { .int(Int64($0.info.key.index)) },
        changed("address", .string, "the peer's address") { .text($0.info.address?.description) },
        changed("transport", .string, "the link's transport") { .string($0.info.transport.rawValue) },
        changed("role", .string, "the local role") { .string($0.info.role.rawValue) },
        changed("inferred", .boolean, "whether the capture did not show the connection open") {
            .bool($0.info.inferred)
        },
        changed("reason", .string, "why a connection closed") { $0.change == .closed ? .text($0.code?.name) : nil },
        changed("status", .string, "why a connection failed") { $0.change == .closed ? nil : .text($0.code?.name) },
        changed("opened_record", .integer, "the record that opened it") { .integer($0.info.openedRecord) },
    ]

    private static let fragment = FieldDeclarer<ACLFragmentInfo> { e in
        if case .acl(let a) = e.body { return a }
        return nil
    }

    static let acl: [EventField] = [
        EventField.connection,
        fragment("boundary", .integer, "the packet boundary flag") { .int(Int64($0.boundary.rawValue)) },
        fragment("length", .integer, "the fragment's length") { .int(Int64($0.length)) },
    ]

    private static let pdu = FieldDeclarer<L2CAPInfo> { e in
        if case .l2cap(let l) = e.body { return l }
        return nil
    }

    static let l2cap: [EventField] = [
        EventField.connection,
        pdu("cid", .integer, "the channel id") { .int(Int64($0.cid)) },
        pdu("length", .integer, "the PDU's length") { .int(Int64($0.length)) },
        pdu("first_record", .integer, "the record of the PDU's first fragment") { .int(Int64($0.firstRecord)) },
        pdu("truncated", .boolean, "the PDU was cut short") { $0.truncated ? .bool(true) : nil },
    ]

    private static let signal = FieldDeclarer<L2CAPSignalingInfo> { e in
        if case .l2capSignaling(let c) = e.body { return c }
        return nil
    }

    static let l2capSignaling: [EventField] = [
        EventField.connection,
        signal("code", .integer, "the signalling command's code") { .int(Int64($0.code.rawValue)) },
        signal("name", .string, "the signalling command's name") { .string($0.code.name) },
        signal("identifier", .integer, "the identifier pairing request and response") { .int(Int64($0.identifier)) },
    ]

    private static let attOn = FieldDeclarer<ATTInfo> { e in
        if case .att(let a) = e.body { return a }
        return nil
    }

    static let att: [EventField] = [
        EventField.connection,
        attOn("opcode", .integer, "the ATT opcode") { .int(Int64($0.opcode.rawValue)) },
        attOn("name", .string, "the opcode's name") { .string($0.opcode.name) },
        attOn("att_handle", .integer, "the attribute handle") { .integer($0.handle) },
        attOn("uuid", .uuid, "the attribute's UUID, when its discovery was captured") {
            .text($0.uuid?.description)
        },
        attOn("uuid_name", .string, "the UUID's SIG name") { .text($0.uuid.flatMap(GATTNames.name)) },
        attOn("value", .bytes, "the attribute value") { $0.value.map { .bytes($0) } },
        attOn("truncated", .boolean, "the value was cut short") { $0.truncated ? .bool(true) : nil },
    ]

    private static let gatt = FieldDeclarer<GATTValue> { e in
        if case .gattValue(let g) = e.body { return g }
        return nil
    }

    static let gattValue: [EventField] = [
        EventField.connection,
        gatt("att_handle", .integer, "the attribute handle") { .int(Int64($0.handle)) },
        gatt("uuid", .uuid, "the attribute's UUID") { .text($0.uuid?.description) },
        gatt("uuid_name", .string, "the UUID's SIG name") { .text($0.uuid.flatMap(GATTNames.name)) },
        gatt("value", .bytes, "the whole value") { .bytes($0.value[...]) },
        gatt("text", .string, "the value as text, when it is") { .text($0.text) },
        gatt("first_record", .integer, "the record of the first part") { .int(Int64($0.firstRecord)) },
    ]

    private static let skipped = FieldDeclarer<UndecodedInfo> { e in
        if case .undecoded(let u) = e.body { return u }
        return nil
    }

    static let undecoded: [EventField] = [
        EventField.connection,
        skipped("what", .string, "the channel the bytes were on") { .string($0.what) },
        skipped("length", .integer, "the packet's full size") { .int(Int64($0.length)) },
        skipped("bytes", .bytes, "the packet's first bytes") { .bytes($0.bytes[...]) },
        skipped("bytes_cut", .integer, "how many bytes bytes leaves out") { .int(Int64($0.bytesCut)) },
    ]
}
