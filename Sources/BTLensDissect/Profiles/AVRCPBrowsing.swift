import BTLensCore

extension AVRCPDecoder {
    /// Items of a GetFolderItems response listed by name; the others are counted.
    static let listedItems = 32

    /// A browsing PDU's parameters (AVRCP 1.6.2 §6.9.3, §6.10.4, §6.11, §6.15.2). A response whose
    /// status is an error carries nothing after it.
    static func browsingParameters(
        _ pdu: UInt8, _ r: inout ByteReader, command: Bool, _ f: inout [(String, FieldValue)]
    )
        throws(ShortRead)
    {
        if pdu == 0xa0 {  // General Reject: the reason only (§6.15.2)
            let code = try r.u8()
            f += [("error_code", .hex(code)), ("error_name", .string(AVRCPNames.status(code)))]
            return
        }
        if command { return try browsingCommand(pdu, &r, &f) }
        guard [0x70, 0x71, 0x72, 0x73, 0x75, 0x80].contains(pdu) else { return }
        f += status(try r.u8())
        guard !r.isAtEnd else { return }
        switch pdu {
        case 0x70:  // SetBrowsedPlayer (§6.9.3)
            f += [("uid_counter", .int(try r.u16be())), ("item_count", .int(try r.u32be()))]
            try r.skip(2)  // character set
            let depth = Int(try r.u8())
            f.append(("folder_depth", .int(depth)))
            // At most the message's size (its names are in it), then cut like any string.
            var path: [UInt8] = []
            for _ in 0..<depth { path += [0x2f] + (try r.bytes(Int(try r.u16be()))) }
            f += AVRCPText.fields("path", path[...])
        case 0x71:  // GetFolderItems (§6.10.4.2)
            f.append(("uid_counter", .int(try r.u16be())))
            let count = Int(try r.u16be())
            f.append(("item_count", .int(count)))
            var items: [String] = []
            for _ in 0..<count {
                let type = try r.u8()
                let item = try r.bytes(Int(try r.u16be()))
                guard items.count < listedItems else { continue }
                var ir = ByteReader(r.bytes[r.bytes.startIndex..<item.endIndex])
                try ir.skip(item.startIndex - r.bytes.startIndex)  // offsets of a short item from the parameters' start
                items.append(try folderItem(type, &ir))
            }
            f.append(("items", .string(items.joined(separator: ", "))))
            if count > items.count { f.append(("items_not_listed", .int(count - items.count))) }
        case 0x72:  // ChangePath (§6.10.4.1)
            f.append(("item_count", .int(try r.u32be())))
        case 0x73:  // GetItemAttributes (§6.10.4.3)
            let count = Int(try r.u8())
            f.append(("count", .int(count)))
            try AVRCPText.attributeValues(count, &r, into: &f)
        default:  // GetTotalNumberOfItems (§6.10.4.4), Search (§6.11)
            f += [("uid_counter", .int(try r.u16be())), ("item_count", .int(try r.u32be()))]
        }
    }

    static func browsingCommand(_ pdu: UInt8, _ r: inout ByteReader, _ f: inout [(String, FieldValue)])
        throws(ShortRead)
    {
        switch pdu {
        case 0x70:
            f.append(("player_id", .int(try r.u16be())))
        case 0x71:
            f += [
                ("scope", .string(AVRCPNames.scope(try r.u8()))), ("start", .int(try r.u32be())),
                ("end", .int(try r.u32be())),
            ]
            let count = try r.u8()
            let ids = try list(count == 0xff ? 0 : Int(count), &r) { (r) throws(ShortRead) in
                AVRCPNames.mediaAttributeName(try r.u32be())
            }
            f.append(("attributes", .string(count == 0 ? "all" : count == 0xff ? "none" : ids)))
        case 0x72:
            f.append(("uid_counter", .int(try r.u16be())))
            let direction = try r.u8()
            f += [
                (
                    "direction",
                    .string(direction == 0 ? "up" : direction == 1 ? "down" : Hex.value(direction, width: 2))
                ),
                ("folder_uid", uid(try r.u64be())),
            ]
        case 0x73:
            f += [
                ("scope", .string(AVRCPNames.scope(try r.u8()))), ("uid", uid(try r.u64be())),
                ("uid_counter", .int(try r.u16be())),
            ]
            let count = Int(try r.u8())
            let ids = try list(count, &r) { (r) throws(ShortRead) in AVRCPNames.mediaAttributeName(try r.u32be()) }
            f.append(("attributes", .string(count == 0 ? "all" : ids)))
        case 0x75:
            f.append(("scope", .string(AVRCPNames.scope(try r.u8()))))
        case 0x80:
            try r.skip(2)  // character set
            f += AVRCPText.fields("search", try r.bytes(Int(try r.u16be())))
        default:
            break
        }
    }

    /// One item of a GetFolderItems response (§6.10.2): its kind and name.
    static func folderItem(_ type: UInt8, _ r: inout ByteReader) throws(ShortRead) -> String {
        switch type {
        case 0x01:  // Media Player: id, major type, sub type, play status, features, charset, name
            let id = try r.u16be()
            try r.skip(1 + 4 + 1 + 16 + 2)
            return "player \(id) \(AVRCPText.quoted(try r.bytes(Int(try r.u16be()))))"
        case 0x02:  // Folder: UID, folder type, playable, charset, name
            try r.skip(8 + 1 + 1 + 2)
            return "folder \(AVRCPText.quoted(try r.bytes(Int(try r.u16be()))))"
        case 0x03:  // Media Element: UID, media type, charset, name, attributes
            try r.skip(8)
            let media = try r.u8()
            try r.skip(2)
            let kind = media == 0 ? "audio" : media == 1 ? "video" : "media \(Hex.value(media, width: 2))"
            return "\(kind) \(AVRCPText.quoted(try r.bytes(Int(try r.u16be()))))"
        default:
            return "item \(Hex.value(type, width: 2))"
        }
    }
}
