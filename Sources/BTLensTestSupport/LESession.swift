import BTLensCapture
import BTLensCore
import BTLensDissect

/// Scripts a BLE exchange record by record: HCI connection events, ATT PDUs split into ACL
/// fragments as a controller would, and A5 frames cut into ATT values. It remembers which A5
/// frames and diagnostics the decoder must report, so tests compare against the script, not
/// against hard-coded output.
public struct LESession {
    public struct ExpectedFrame: Equatable, CustomStringConvertible {
        public var record: Int
        public var direction: Direction
        /// The characteristic value handle (ATT), or the External Accessory session (iAP2).
        public var attHandle: UInt16
        public var command: UInt8
        public var sequence: UInt8
        public var payload: [UInt8]
        public var checksumOK: Bool
        public var description: String {
            "#\(record) \(direction.name) \(Hex.value(attHandle, width: 4)) cmd \(command) seq \(sequence) \(Hex.string(payload)) ok=\(checksumOK)"
        }
    }

    public struct ExpectedDiagnostic: Equatable, CustomStringConvertible {
        public var id: String
        public var record: Int
        public init(id: String, record: Int) {
            self.id = id
            self.record = record
        }
        public var description: String { "#\(record) \(id)" }
    }

    public var writer: BTSnoopWriter
    public var time: Int64
    /// ACL payload per fragment (the controller's buffer size); ATT PDUs longer than this are fragmented.
    public var aclFragment = 27
    public var expectedFrames: [ExpectedFrame] = []
    public var expectedDiagnostics: [ExpectedDiagnostic] = []

    public init(datalink: Int = 1002, start: Int64 = 1_700_000_000_000_000) {
        writer = BTSnoopWriter(datalink: datalink)
        time = start
    }

    public var bytes: [UInt8] { writer.bytes }
    public var lastRecord: Int { writer.count }

    public mutating func tick() -> Int64 {
        time += 1_250
        return time
    }

    @discardableResult
    public mutating func command(_ opcode: UInt16, _ params: [UInt8]) -> Int {
        writer.add(.command, .sent, le16(Int(opcode)) + [UInt8(params.count)] + params, time: tick())
    }

    @discardableResult
    public mutating func event(_ code: UInt8, _ params: [UInt8]) -> Int {
        writer.add(.event, .received, [code, UInt8(params.count)] + params, time: tick())
    }

    /// LE Create Connection, Command Status, LE Connection Complete (we are central).
    public mutating func connect(handle: UInt16, address: [UInt8]) {
        command(
            0x200d,
            [0x60, 0x00, 0x30, 0x00, 0x00, 0x00] + address + [
                0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xf4, 0x01, 0x00, 0x00, 0x00, 0x00,
            ])
        event(0x0f, [0x00, 0x01, 0x0d, 0x20])
        event(
            0x3e,
            [0x01, 0x00] + le16(Int(handle)) + [0x00, 0x00] + address + [0x18, 0x00, 0x00, 0x00, 0xf4, 0x01, 0x00])
    }

    /// Create Connection, Command Status, Connection Complete (BR/EDR ACL, we are central).
    public mutating func connectBREDR(handle: UInt16, address: [UInt8]) {
        command(0x0405, address + [0x18, 0xcc, 0x01, 0x00, 0x00, 0x00, 0x01])
        event(0x0f, [0x00, 0x01, 0x05, 0x04])
        event(0x03, [0x00] + le16(Int(handle)) + address + [0x01, 0x00])
    }

    /// An RFCOMM frame with a correct FCS (or a wrong one), as one L2CAP PDU on `cid`.
    @discardableResult
    public mutating func rfcomm(
        handle: UInt16, _ direction: Direction, cid: UInt16, dlci: UInt8, control: UInt8,
        commandResponse: Bool = true, credits: UInt8? = nil, _ info: [UInt8] = [],
        corruptFCS: Bool = false
    ) -> Int {
        let address = dlci << 2 | (commandResponse ? 0x02 : 0) | 0x01
        let length: [UInt8] =
            info.count < 128 ? [UInt8(info.count << 1 | 1)] : [UInt8(info.count << 1 & 0xfe), UInt8(info.count >> 7)]
        let header = [address, control] + length
        var fcs = RFCOMMFrame.fcs(control & ~0x10 == 0xef ? Array(header.prefix(2)) : header)
        if corruptFCS { fcs &+= 1 }
        return l2cap(handle: handle, direction, cid: cid, header + (credits.map { [$0] } ?? []) + info + [fcs])
    }

    /// A byte stream on an RFCOMM channel as UIH frames of the given sizes; returns their records.
    @discardableResult
    public mutating func rfcommStream(
        handle: UInt16, _ direction: Direction, cid: UInt16, dlci: UInt8, _ bytes: [UInt8],
        frames sizes: [Int]? = nil
    ) -> [Int] {
        var records: [Int] = []
        var offset = 0
        for size in sizes ?? [bytes.count] where offset < bytes.count {
            let piece = Array(bytes[offset..<min(bytes.count, offset + size)])
            offset += size
            records.append(rfcomm(handle: handle, direction, cid: cid, dlci: dlci, control: 0xef, piece))
        }
        return records
    }

    public mutating func disconnect(handle: UInt16, reason: UInt8 = 0x13) {
        command(0x0406, le16(Int(handle)) + [reason])
        event(0x0f, [0x00, 0x01, 0x06, 0x04])
        event(0x05, [0x00] + le16(Int(handle)) + [0x16])
    }

    /// One L2CAP PDU on `cid`, as ACL fragments of `aclFragment` bytes. Returns the last record.
    @discardableResult
    public mutating func l2cap(
        handle: UInt16, _ direction: Direction, cid: UInt16 = 0x0004, _ payload: [UInt8],
        fragment: Int? = nil
    ) -> Int {
        let pdu = le16(payload.count) + le16(Int(cid)) + payload
        let size = max(1, fragment ?? aclFragment)
        var offset = 0
        var last = 0
        repeat {
            let chunk = Array(pdu[offset..<min(pdu.count, offset + size)])
            last = acl(handle: handle, direction, boundary: offset == 0 ? 0b10 : 0b01, chunk)
            offset += size
        } while offset < pdu.count
        return last
    }

    /// One raw ACL packet with the given packet-boundary flag.
    @discardableResult
    public mutating func acl(
        handle: UInt16, _ direction: Direction, boundary: UInt8, _ data: [UInt8],
        cutTo: Int? = nil
    ) -> Int {
        let header = le16(Int(handle) | Int(boundary) << 12) + le16(data.count)
        return writer.add(.acl, direction, header + data, time: tick(), cutTo: cutTo.map { $0 + 4 })
    }

    @discardableResult
    public mutating func att(handle: UInt16, _ direction: Direction, _ pdu: [UInt8]) -> Int {
        l2cap(handle: handle, direction, pdu)
    }

    /// Sends `frame` to `attHandle` as Write Commands (sent) or Notifications (received), cut into
    /// values of the given sizes; the last value may also carry `trailing` bytes (the next frame's start).
    @discardableResult
    public mutating func stream(
        handle: UInt16, attHandle: UInt16, _ direction: Direction, _ bytes: [UInt8],
        values sizes: [Int]
    ) -> [Int] {
        var records: [Int] = []
        var offset = 0
        for size in sizes where offset < bytes.count {
            let value = Array(bytes[offset..<min(bytes.count, offset + size)])
            offset += size
            let opcode: UInt8 = direction == .sent ? 0x52 : 0x1b
            records.append(att(handle: handle, direction, [opcode] + le16(Int(attHandle)) + value))
        }
        return records
    }

    /// An A5 frame sent whole or in pieces; its expected record is that of its last byte.
    public mutating func frame(
        handle: UInt16, attHandle: UInt16, _ direction: Direction, command: UInt8,
        sequence: UInt8, payload: [UInt8], values: [Int]? = nil, corruptChecksum: Bool = false
    ) {
        var bytes = Frame.encode(command: command, sequence: sequence, payload: payload)
        if corruptChecksum { bytes[bytes.count - 1] &+= 1 }
        let records = stream(handle: handle, attHandle: attHandle, direction, bytes, values: values ?? [bytes.count])
        expectFrame(
            records.last ?? 0, direction, attHandle, command: command, sequence: sequence, payload: payload,
            ok: !corruptChecksum)
    }

    public mutating func expectFrame(
        _ record: Int, _ direction: Direction, _ attHandle: UInt16, command: UInt8,
        sequence: UInt8, payload: [UInt8], ok: Bool = true
    ) {
        expectedFrames.append(
            ExpectedFrame(
                record: record, direction: direction, attHandle: attHandle,
                command: command, sequence: sequence, payload: payload, checksumOK: ok))
    }

    public mutating func expect(_ id: String, at record: Int) {
        expectedDiagnostics.append(ExpectedDiagnostic(id: id, record: record))
    }
}
