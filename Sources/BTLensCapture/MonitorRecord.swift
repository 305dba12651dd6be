import BTLensCore

/// BlueZ monitor records (btsnoop datalink 2001, pcap LINKTYPE 254): the opcode says what the payload is.
public enum MonitorRecord {
    /// What an opcode's payload is: an HCI packet sent or received, or a note whose text is read so.
    enum Payload: Equatable {
        case packet(RecordKind, Direction)
        case note(NoteText)
    }

    /// How a note's text is read from its payload.
    enum NoteText {
        case newIndex, indexInfo, userLogging, controlOpen
        /// Text up to the first NUL.
        case text
        /// Only the payload's size.
        case size
    }

    /// The opcodes (BlueZ, src/shared/btsnoop.h), each written once: number, name, payload. Readers and
    /// writers of monitor records all take their numbers from here.
    private static let opcodes: [(opcode: UInt16, name: String, payload: Payload)] = [
        (0, "New Index", .note(.newIndex)), (1, "Delete Index", .note(.size)),
        (2, "Command", .packet(.command, .sent)), (3, "Event", .packet(.event, .received)),
        (4, "ACL TX", .packet(.aclData, .sent)), (5, "ACL RX", .packet(.aclData, .received)),
        (6, "SCO TX", .packet(.scoData, .sent)), (7, "SCO RX", .packet(.scoData, .received)),
        (8, "Open Index", .note(.size)), (9, "Close Index", .note(.size)), (10, "Index Info", .note(.indexInfo)),
        (11, "Vendor Diagnostic", .note(.size)), (12, "System Note", .note(.text)),
        (13, "User Logging", .note(.userLogging)), (14, "Control Open", .note(.controlOpen)),
        (15, "Control Close", .note(.size)), (16, "Control Command", .note(.size)),
        (17, "Control Event", .note(.size)), (18, "ISO TX", .packet(.isoData, .sent)),
        (19, "ISO RX", .packet(.isoData, .received)),
    ]

    /// `opcodes` by number: a lookup per record is an array index.
    static let table: [(name: String, payload: Payload)?] = {
        var table = [(name: String, payload: Payload)?](repeating: nil, count: 256)
        for entry in opcodes { table[Int(entry.opcode)] = (entry.name, entry.payload) }
        return table
    }()

    static let busNames = [
        "Virtual", "USB", "PCCARD", "UART", "RS232", "PCI", "SDIO", "SPI", "I2C", "SMD", "VIRTIO", "IPC",
    ]

    /// Fills in kind, direction and, for meta records, the note text.
    public static func classify(_ record: inout CaptureRecord, index: UInt16, opcode: UInt16) {
        record.controllerIndex = index
        let i = Int(opcode)
        // The payload alone is read first: a packet's record needs no name.
        switch i < table.count ? table[i]?.payload : nil {
        case .packet(let kind, let direction)?:
            record.kind = kind
            record.direction = direction
        case .note(let format)?:
            record.direction = nil
            record.kind = .note
            record.noteCategory = table[i]?.name ?? ""
            record.noteText = text(format, payload: record.payload)
        case nil:
            record.direction = nil
            record.kind = .unknown
            record.noteCategory = "Monitor opcode \(opcode)"
        }
    }

    /// The opcode that carries a record of `kind` in `direction` (commands and events have one
    /// direction each); notes go as System Note, the one whose payload is plain text.
    public static func opcode(_ kind: RecordKind, _ direction: Direction) -> UInt16? {
        if kind == .note { return opcodes.first { $0.payload == .note(.text) }?.opcode }
        return
            (opcodes.first { $0.payload == .packet(kind, direction) }
            ?? opcodes.first { if case .packet(kind, _) = $0.payload { true } else { false } })?.opcode
    }

    static func text(_ format: NoteText, payload: ArraySlice<UInt8>) -> String {
        var r = ByteReader(payload)
        switch format {
        case .newIndex:
            guard let type = try? r.u8(), let bus = try? r.u8(), let address = try? BDAddr(&r),
                let name = try? r.bytes(8)
            else { return "\(payload.count) bytes" }
            let busName = Int(bus) < busNames.count ? busNames[Int(bus)] : "bus \(bus)"
            let controller = type == 0 ? "Primary" : "AMP (\(type))"
            return "\(cString(name)) type \(controller) bus \(busName) address \(address)"
        case .indexInfo:
            guard let address = try? BDAddr(&r), let manufacturer = try? r.u16le() else {
                return "\(payload.count) bytes"
            }
            return "address \(address) manufacturer \(manufacturer)"
        case .text:
            return cString(payload)
        case .userLogging:
            guard let priority = try? r.u8(), let identLength = try? r.u8(),
                let ident = try? r.bytes(Int(identLength))
            else {
                return cString(payload)
            }
            return "[\(priority)] \(cString(ident)): \(cString(r.rest()))"
        case .controlOpen:
            guard (try? r.skip(13)) != nil, let n = try? r.u8(), let ident = try? r.bytes(Int(n)) else {
                return "\(payload.count) bytes"
            }
            return cString(ident)
        case .size:
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
