import BTLensCapture
import BTLensCore

/// Writes btsnoop files byte by byte, as Android (1002), BlueZ (2001) or H1 writers (1001) do.
public struct BTSnoopWriter {
    public enum PacketType: UInt8 {
        case command = 1
        case acl = 2
        case sco = 3
        case event = 4
        case iso = 5

        var kind: RecordKind {
            switch self {
            case .command: return .command
            case .acl: return .aclData
            case .sco: return .scoData
            case .event: return .event
            case .iso: return .isoData
            }
        }
    }

    public let datalink: Int
    public private(set) var bytes: [UInt8]
    public private(set) var count = 0

    /// Records hold H4 bytes: true for 1002; also possible under a 1001 header (a writer's mistake).
    public let h4: Bool

    public init(datalink: Int = 1002, h4: Bool? = nil) {
        self.datalink = datalink
        self.h4 = h4 ?? (datalink == 1002)
        bytes = BTSnoopReader.epochMagic + be32(1) + be32(UInt32(datalink))
    }

    /// Adds a record; `cutTo` keeps only that many bytes of the packet (a capture truncation).
    /// Returns the record's 1-based number.
    @discardableResult
    public mutating func add(
        _ type: PacketType, _ direction: Direction, _ packet: [UInt8], time: Int64,
        cutTo: Int? = nil
    ) -> Int {
        var data = packet
        var flags: UInt32 = direction == .received ? 1 : 0
        if type == .command || type == .event { flags |= 2 }
        if h4 { data = [type.rawValue] + packet }
        if datalink == 2001 {
            flags = UInt32(MonitorRecord.opcode(type.kind, direction) ?? 0)
        }
        return addRaw(data, flags: flags, time: time, cutTo: cutTo.map { $0 + (data.count - packet.count) })
    }

    /// A BlueZ monitor record (datalink 2001) with any opcode and controller index.
    @discardableResult
    public mutating func addMonitor(opcode: UInt16, index: UInt16, _ payload: [UInt8], time: Int64) -> Int {
        addRaw(payload, flags: UInt32(index) << 16 | UInt32(opcode), time: time, cutTo: nil)
    }

    @discardableResult
    public mutating func addRaw(
        _ data: [UInt8], flags: UInt32, time: Int64, cutTo: Int?,
        includedOverride: UInt32? = nil, originalOverride: UInt32? = nil
    ) -> Int {
        let kept = cutTo.map { Array(data.prefix($0)) } ?? data
        bytes += be32(originalOverride ?? UInt32(data.count)) + be32(includedOverride ?? UInt32(kept.count))
        bytes += be32(flags) + be32(0)
        bytes += be64(UInt64(bitPattern: time + BTSnoopReader.epochDelta))
        bytes += kept
        count += 1
        return count
    }

    /// Appends raw bytes (to build damaged files).
    public mutating func appendGarbage(_ data: [UInt8]) { bytes += data }
}

extension BTSnoopReader {
    static let epochMagic: [UInt8] = CaptureFormat.btsnoopMagic
}

func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xffff_ffff)) }
func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff)] }
