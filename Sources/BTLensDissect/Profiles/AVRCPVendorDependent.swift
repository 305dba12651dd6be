import BTLensCore

extension AVRCPDecoder {
    /// The Bluetooth SIG's company id: vendor-dependent frames carrying AVRCP PDUs (AVRCP 1.6.2 §4.3.1).
    static let bluetoothSIG: UInt32 = 0x001958

    /// Vendor Dependent (AVRCP 1.6.2 §6.3.1, AV/C 4.0 §9.6): company id, then for the Bluetooth SIG a
    /// PDU id, packet type, parameter length and parameters. Returns the message's name.
    static func vendorDependent(_ r: inout ByteReader, ctype: UInt8, _ p: inout AVRCPParameters) -> String {
        guard let company = try? r.u24be() else {
            p.read(&r, "Vendor Dependent") { (r, _) throws(ShortRead) in try r.skip(3) }
            return "Vendor Dependent"
        }
        guard company == bluetoothSIG else {
            p.fields.append(("company_id", .hex(Int64(company), digits: 6)))
            return "Vendor Dependent"
        }
        var pdu: UInt8 = 0
        var type: UInt8 = 0
        var length = 0
        p.read(&r, "Vendor Dependent") { (r, f) throws(ShortRead) in
            pdu = try r.u8()
            f.append(("pdu", .hex(pdu)))
            type = try r.u8() & 0x03
            f.append(("packet_type", .string(AVCTPPacketType(rawValue: type)?.name ?? "single")))
            length = Int(try r.u16be())
        }
        guard p.diagnostic == nil else { return "Vendor Dependent" }
        let name = AVRCPNames.pdu(pdu)
        let base = r.offset
        guard let parameters = p.parameters(&r, length: length, of: name) else { return name }
        // A fragment of a long response (§6.3.1): its parameters are cut anywhere, so not decoded.
        guard type == 0 else {
            p.fields.append(("parameter_length", .int(length)))
            return name
        }
        var pr = ByteReader(parameters)
        switch ctype {
        case 0x0...0x3:  // control, status, specific inquiry, notify: the command's parameters
            p.read(&pr, name, base: base) { (r, f) throws(ShortRead) in try command(pdu, &r, &f) }
        case 0x9, 0xc, 0xd, 0xf:  // accepted, stable, changed, interim
            p.read(&pr, name, base: base) { (r, f) throws(ShortRead) in try response(pdu, &r, &f) }
        case 0xa:  // rejected: an error code (§6.15.1)
            p.read(&pr, name, base: base) { (r, f) throws(ShortRead) in
                let code = try r.u8()
                f += [("error_code", .hex(code)), ("error_name", .string(AVRCPNames.status(code)))]
            }
        default:  // general inquiry, not implemented, in transition: nothing more to read
            break
        }
        return name
    }

    /// A command's parameters, by PDU (AVRCP 1.6.2 §6.4–6.14).
    static func command(_ pdu: UInt8, _ r: inout ByteReader, _ f: inout [(String, FieldValue)]) throws(ShortRead) {
        switch pdu {
        case 0x10:
            f.append(("capability", .string(capability(try r.u8()))))
        case 0x12:
            f.append(("attribute", .string(AVRCPNames.setting(try r.u8()))))
        case 0x13, 0x15:
            f.append(
                (
                    "attributes",
                    .string(
                        try list(Int(try r.u8()), &r) { (r) throws(ShortRead) in
                            AVRCPNames.setting(try r.u8())
                        })
                ))
        case 0x14:
            f.append(("settings", .string(try settings(&r))))
        case 0x16:
            let attribute = try r.u8()
            f.append(("attribute", .string(AVRCPNames.setting(attribute))))
            f.append(
                (
                    "values",
                    .string(
                        try list(Int(try r.u8()), &r) { (r) throws(ShortRead) in
                            AVRCPNames.settingValue(attribute, try r.u8())
                        })
                ))
        case 0x17:
            f.append(
                (
                    "charsets",
                    .string(
                        try list(Int(try r.u8()), &r) { (r) throws(ShortRead) in
                            Hex.value(try r.u16be(), width: 4)
                        })
                ))
        case 0x18:
            f.append(("battery", .string(AVRCPNames.battery(try r.u8()))))
        case 0x20:
            f.append(("identifier", uid(try r.u64be())))
            let count = Int(try r.u8())
            let ids = try list(count, &r) { (r) throws(ShortRead) in AVRCPNames.mediaAttributeName(try r.u32be()) }
            f.append(("attributes", .string(count == 0 ? "all" : ids)))
        case 0x31:
            let event = try r.u8()
            f.append(("event", .string(AVRCPNames.event(event))))
            // The playback interval applies to PlaybackPosChanged only (§6.7.2).
            let interval = try r.u32be()
            if event == 0x05 { f.append(("interval_s", .int(interval))) }
        case 0x40, 0x41:
            let target = try r.u8()
            f += [("continuing_pdu", .hex(target)), ("continuing_pdu_name", .string(AVRCPNames.pdu(target)))]
        case 0x50:
            f += volume(try r.u8())
        case 0x60:
            f.append(("player_id", .int(try r.u16be())))
        case 0x74, 0x90:
            f += [
                ("scope", .string(AVRCPNames.scope(try r.u8()))), ("uid", uid(try r.u64be())),
                ("uid_counter", .int(try r.u16be())),
            ]
        default:  // GetPlayStatus, ListPlayerApplicationSettingAttributes: no parameters
            break
        }
    }

    /// A response's parameters, by PDU (AVRCP 1.6.2 §6.4–6.14).
    static func response(_ pdu: UInt8, _ r: inout ByteReader, _ f: inout [(String, FieldValue)]) throws(ShortRead) {
        switch pdu {
        case 0x10:
            let id = try r.u8()
            let count = Int(try r.u8())
            f += [("capability", .string(capability(id))), ("count", .int(count))]
            if id == 0x02 {
                f.append(
                    (
                        "company_ids",
                        .string(
                            try list(count, &r) { (r) throws(ShortRead) in
                                Hex.value(try r.u24be(), width: 6)
                            })
                    ))
            } else if id == 0x03 {
                f.append(
                    (
                        "events",
                        .string(
                            try list(count, &r) { (r) throws(ShortRead) in
                                AVRCPNames.event(try r.u8())
                            })
                    ))
            }
        case 0x11:
            f.append(
                (
                    "attributes",
                    .string(
                        try list(Int(try r.u8()), &r) { (r) throws(ShortRead) in
                            AVRCPNames.setting(try r.u8())
                        })
                ))
        case 0x12:
            f.append(
                (
                    "values",
                    .string(
                        try list(Int(try r.u8()), &r) { (r) throws(ShortRead) in
                            Hex.value(try r.u8(), width: 2)
                        })
                ))
        case 0x13:
            f.append(("settings", .string(try settings(&r))))
        case 0x15, 0x16:
            f.append(
                (
                    "texts",
                    .string(
                        try list(Int(try r.u8()), &r) { (r) throws(ShortRead) in
                            let id = try r.u8()
                            try r.skip(2)  // character set
                            return "\(Hex.value(id, width: 2)) \(AVRCPText.quoted(try r.bytes(Int(try r.u8()))))"
                        })
                ))
        case 0x20:
            let count = Int(try r.u8())
            f.append(("count", .int(count)))
            try AVRCPText.attributeValues(count, &r, into: &f)
        case 0x30:
            f += milliseconds("length", try r.u32be(), absent: "not supported")
            f += milliseconds("position", try r.u32be(), absent: "not supported")
            f.append(("play_status", .string(AVRCPNames.playStatus(try r.u8()))))
        case 0x31:
            try notification(&r, &f)
        case 0x50:
            f += volume(try r.u8())
        case 0x60, 0x74, 0x90:
            f += status(try r.u8())
        default:  // SetPlayerApplicationSettingValue, Inform…, AbortContinuingResponse: no parameters
            break
        }
    }

    /// A RegisterNotification interim or changed response: the event and its value (§6.7.2).
    static func notification(_ r: inout ByteReader, _ f: inout [(String, FieldValue)]) throws(ShortRead) {
        let event = try r.u8()
        f.append(("event", .string(AVRCPNames.event(event))))
        switch event {
        case 0x01: f.append(("play_status", .string(AVRCPNames.playStatus(try r.u8()))))
        case 0x02: f.append(("identifier", uid(try r.u64be())))
        case 0x05: f += milliseconds("position", try r.u32be(), absent: "not selected")
        case 0x06: f.append(("battery", .string(AVRCPNames.battery(try r.u8()))))
        case 0x07: f.append(("system_status", .string(AVRCPNames.systemStatus(try r.u8()))))
        case 0x08: f.append(("settings", .string(try settings(&r))))
        case 0x0b: f += [("player_id", .int(try r.u16be())), ("uid_counter", .int(try r.u16be()))]
        case 0x0c: f.append(("uid_counter", .int(try r.u16be())))
        case 0x0d: f += volume(try r.u8())
        default: break  // track reached end or start, now playing, available players: no value
        }
    }

    /// GetCapabilities' capability ids (§6.4.1).
    static func capability(_ v: UInt8) -> String {
        v == 0x02 ? "CompanyID" : v == 0x03 ? "EventsSupported" : Hex.value(v, width: 2)
    }

    /// Absolute volume (§6.13.1): 7 bits, 0x7f is 100 % (the percent rounded down, as Wireshark does).
    static func volume(_ v: UInt8) -> [(String, FieldValue)] {
        let level = Int(v & 0x7f)
        return [("volume", .int(level)), ("volume_percent", .int(level * 100 / 127))]
    }

    /// A time in ms, or 0xffffffff: none (`NAME: "not selected"` instead of `NAME_ms`).
    static func milliseconds(_ name: String, _ v: UInt32, absent: String) -> [(String, FieldValue)] {
        v == .max ? [(name, .string(absent))] : [(name + "_ms", .int(v))]
    }

    static func status(_ v: UInt8) -> [(String, FieldValue)] {
        [("status", .hex(v)), ("status_name", .string(AVRCPNames.status(v)))]
    }

    /// Attribute and value pairs of player application settings, after their count (§6.5.3–6.5.4).
    static func settings(_ r: inout ByteReader) throws(ShortRead) -> String {
        try list(Int(try r.u8()), &r) { (r) throws(ShortRead) in
            let attribute = try r.u8()
            return "\(AVRCPNames.setting(attribute)): \(AVRCPNames.settingValue(attribute, try r.u8()))"
        }
    }

    /// `count` items read by `item`, as a readable list.
    static func list(
        _ count: Int, _ r: inout ByteReader, _ item: (inout ByteReader) throws(ShortRead) -> String
    ) throws(ShortRead) -> String {
        var items: [String] = []
        for _ in 0..<count { items.append(try item(&r)) }
        return items.joined(separator: ", ")
    }
}

extension AVRCPDecoder {
    /// A 64-bit UID or track identifier (§6.10.3), as hex text: `.hex` holds an Int64, and UIDs use
    /// the top bit (0xffffffffffffffff is "no track selected").
    static func uid(_ v: UInt64) -> FieldValue { .string(Hex.value(v, width: 16)) }
}
