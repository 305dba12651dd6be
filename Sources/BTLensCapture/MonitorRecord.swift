import BTLensCore

/// BlueZ monitor records (btsnoop datalink 2001, pcap LINKTYPE 254): the opcode says what the payload is.
public enum MonitorRecord {
    public static let opcodeNames: [UInt16: String] = [
        0: "New Index", 1: "Delete Index", 2: "Command", 3: "Event", 4: "ACL TX", 5: "ACL RX",
        6: "SCO TX", 7: "SCO RX", 8: "Open Index", 9: "Close Index", 10: "Index Info",
        11: "Vendor Diagnostic", 12: "System Note", 13: "User Logging", 14: "Control Open",
        15: "Control Close", 16: "Control Command", 17: "Control Event", 18: "ISO TX", 19: "ISO RX",
    ]
    static let busNames = ["Virtual", "USB", "PCCARD", "UART", "RS232", "PCI", "SDIO", "SPI", "I2C", "SMD", "VIRTIO", "IPC"]

    /// Fills in kind, direction and, for meta records, the note text.
    public static func classify(_ record: inout CaptureRecord, index: UInt16, opcode: UInt16) {
        record.controllerIndex = index
        if let (kind, direction) = packet(opcode) {
            record.kind = kind
            record.direction = direction
            return
        }
        record.direction = nil
        guard let name = opcodeNames[opcode] else {
            record.kind = .unknown
            record.noteCategory = "Monitor opcode \(opcode)"
            return
        }
        record.kind = .note
        record.noteCategory = name
        record.noteText = text(opcode: opcode, payload: record.payload)
    }

    /// The HCI packet an opcode carries, and its direction (a switch: this runs once a record).
    static func packet(_ opcode: UInt16) -> (RecordKind, Direction)? {
        switch opcode {
        case 2: return (.command, .sent)
        case 3: return (.event, .received)
        case 4: return (.aclData, .sent)
        case 5: return (.aclData, .received)
        case 6: return (.scoData, .sent)
        case 7: return (.scoData, .received)
        case 18: return (.isoData, .sent)
        case 19: return (.isoData, .received)
        default: return nil
        }
    }

    static func text(opcode: UInt16, payload: ArraySlice<UInt8>) -> String {
        var r = ByteReader(payload)
        switch opcode {
        case 0:
            guard let type = try? r.u8(), let bus = try? r.u8(), let address = try? BDAddr(&r),
                  let name = try? r.bytes(8) else { return "\(payload.count) bytes" }
            let busName = Int(bus) < busNames.count ? busNames[Int(bus)] : "bus \(bus)"
            return "\(cString(name)) type \(type == 0 ? "Primary" : "AMP (\(type))") bus \(busName) address \(address)"
        case 10:
            guard let address = try? BDAddr(&r), let manufacturer = try? r.u16le() else { return "\(payload.count) bytes" }
            return "address \(address) manufacturer \(manufacturer)"
        case 12:
            return cString(payload)
        case 13:
            guard let priority = try? r.u8(), let identLength = try? r.u8(), let ident = try? r.bytes(Int(identLength)) else {
                return cString(payload)
            }
            return "[\(priority)] \(cString(ident)): \(cString(r.rest()))"
        case 14:
            guard (try? r.skip(13)) != nil, let n = try? r.u8(), let ident = try? r.bytes(Int(n)) else {
                return "\(payload.count) bytes"
            }
            return cString(ident)
        default:
            return payload.isEmpty ? "" : "\(payload.count) bytes"
        }
    }

    /// Text up to the first NUL; invalid UTF-8 is replaced, never trusted.
    static func cString(_ bytes: ArraySlice<UInt8>) -> String {
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        var text = String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
        while text.last == "\n" || text.last == "\r" { text.removeLast() }
        return text
    }
}
