import BTLensCore

/// One advertising or scan response report (Core Vol 4, Part E, §7.7.65.2 and §7.7.65.13).
public struct AdvertisingReport: Sendable {
    public var address: BDAddr
    public var rssi: Int8
    /// Complete or shortened Local Name (AD types 0x09, 0x08).
    public var name: String?
    /// Service UUIDs, complete or incomplete lists (AD types 0x02–0x07).
    public var uuids: [BluetoothUUID] = []

    /// Reads the advertising data's AD structures (Core Supplement, Part A, §1): length, type, data.
    init(address: BDAddr, rssi: Int8, data: ArraySlice<UInt8>) {
        self.address = address
        self.rssi = rssi
        var r = ByteReader(data)
        while let length = try? r.u8(), length > 0, let type = try? r.u8(), let value = try? r.bytes(Int(length) - 1) {
            switch type {
            case 0x08, 0x09:
                name = String(decoding: value.prefix { $0 != 0 }, as: UTF8.self)
            case 0x02, 0x03, 0x04, 0x05, 0x06, 0x07:
                let size = [0x02: 2, 0x03: 2, 0x04: 4, 0x05: 4, 0x06: 16, 0x07: 16][type] ?? 2
                var v = ByteReader(value)
                while v.remaining >= size, let uuid = try? BluetoothUUID.read(&v, size: size) { uuids.append(uuid) }
            default:
                break
            }
        }
    }
}

/// Who advertised while the phone scanned: per address, how often, how strong, what it said.
/// Bounded: at most `deviceLimit` addresses (the first seen), each with at most 16 UUIDs; the
/// addresses past them only counted, up to `uncountedDeviceLimit`.
public struct AdvertisingTable: Sendable {
    public static let deviceLimit = 256
    /// Addresses past `deviceLimit` told apart to count them (8 bytes each): past this many the
    /// count is a lower bound.
    public static let uncountedDeviceLimit = 65_536

    public struct Device: Sendable {
        public var address: BDAddr
        public var reports = 0
        public var first: Lifecycle.Step
        public var last: Lifecycle.Step
        public var rssi: ClosedRange<Int>
        public var name: String?
        public var uuids: [BluetoothUUID] = []
    }

    public private(set) var devices: [BDAddr: Device] = [:]
    /// Reports from addresses past the limit.
    public private(set) var uncounted = 0
    private var uncountedAddresses: Set<BDAddr> = []

    /// Addresses past the limit: exact below `uncountedDeviceLimit`, at least that many at it.
    public var uncountedDevices: Int { uncountedAddresses.count }
    public var uncountedDevicesIsLowerBound: Bool { uncountedAddresses.count >= Self.uncountedDeviceLimit }

    public init() {}

    mutating func add(_ report: AdvertisingReport, _ step: Lifecycle.Step) {
        guard devices[report.address] != nil || devices.count < Self.deviceLimit else {
            uncounted += 1
            if !uncountedDevicesIsLowerBound { uncountedAddresses.insert(report.address) }
            return
        }
        var d =
            devices[report.address]
            ?? Device(address: report.address, first: step, last: step, rssi: Int(report.rssi)...Int(report.rssi))
        d.reports += 1
        d.last = step
        d.rssi = min(d.rssi.lowerBound, Int(report.rssi))...max(d.rssi.upperBound, Int(report.rssi))
        if let n = report.name, !n.isEmpty { d.name = n }
        for u in report.uuids where !d.uuids.contains(u) && d.uuids.count < 16 { d.uuids.append(u) }
        devices[report.address] = d
    }

    /// Devices by reports, most first, then by address: the order summaries list them in.
    public var sorted: [Device] {
        devices.values.sorted { ($0.reports, $1.address) > ($1.reports, $0.address) }
    }
}
