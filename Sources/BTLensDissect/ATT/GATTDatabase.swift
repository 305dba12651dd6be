import BTLensCore

/// One server's attributes as learned from discovery in the capture: handle → UUID, and services.
public struct GATTDatabase: Sendable {
    /// Attributes per database; discovery beyond it is ignored (a server has at most 65,535 handles).
    public static let attributeLimit = 4096

    public struct Service: Sendable, Equatable {
        public var start: UInt16
        public var end: UInt16
        public var uuid: BluetoothUUID
    }

    public struct Characteristic: Sendable, Equatable {
        public var declaration: UInt16
        public var valueHandle: UInt16
        public var properties: UInt8
        public var uuid: BluetoothUUID
    }

    public private(set) var services: [Service] = []
    public private(set) var characteristics: [UInt16: Characteristic] = [:]
    /// Descriptors and other attributes found with Find Information.
    public private(set) var attributes: [UInt16: BluetoothUUID] = [:]

    public init() {}

    var count: Int { services.count + characteristics.count + attributes.count }

    mutating func addService(_ s: Service) {
        guard count < Self.attributeLimit else { return }
        services.removeAll { $0.start == s.start }
        services.append(s)
        services.sort { $0.start < $1.start }
    }

    mutating func addCharacteristic(_ c: Characteristic) {
        guard count < Self.attributeLimit || characteristics[c.valueHandle] != nil else { return }
        characteristics[c.valueHandle] = c
    }

    mutating func addAttribute(_ handle: UInt16, _ uuid: BluetoothUUID) {
        // Find Information also lists declarations and value handles; keep what they do not already say.
        if let v = uuid.sig16, (0x2800...0x2803).contains(v) { return }
        guard characteristics[handle] == nil, count < Self.attributeLimit || attributes[handle] != nil else { return }
        attributes[handle] = uuid
    }

    /// The UUID of the attribute at `handle`: a characteristic value or a descriptor.
    public func uuid(of handle: UInt16) -> BluetoothUUID? {
        characteristics[handle]?.uuid ?? attributes[handle]
    }

    public func service(containing handle: UInt16) -> Service? {
        services.last { $0.start <= handle && handle <= $0.end }
    }

    /// The Client Characteristic Configuration descriptor of the characteristic at `valueHandle`, if discovered.
    public func cccd(of valueHandle: UInt16) -> UInt16? {
        attributes.filter { $0.key > valueHandle && $0.value.sig16 == GATTNames.clientCharacteristicConfiguration }
            .map(\.key).filter { characteristic(owning: $0)?.valueHandle == valueHandle }.min()
    }

    /// The characteristic a descriptor belongs to: the nearest value handle below it.
    public func characteristic(owning handle: UInt16) -> Characteristic? {
        characteristics.values.filter { $0.valueHandle < handle }.max { $0.valueHandle < $1.valueHandle }
    }
}

/// Which peer a database belongs to: its address, or the connection when the address is unknown.
public enum PeerID: Hashable, Sendable {
    case address(BDAddr)
    case connection(ConnectionKey)
}

/// Databases by server. Kept across reconnections (bonded devices do not rediscover); bounded in count.
/// A class: every connection's ATT decoder shares the one store without copying it.
public final class GATTStore {
    /// `Limits.gattDatabases`: beyond it the oldest database is forgotten.
    public let databaseLimit: Int

    /// `serverIsPeer`: false when the phone is the server and the accessory its client.
    public struct Key: Hashable, Sendable {
        public var peer: PeerID
        public var serverIsPeer: Bool
    }

    private var databases: [Key: GATTDatabase] = [:]
    private var order: [Key] = []

    public init(databaseLimit: Int = Limits().gattDatabases) { self.databaseLimit = max(databaseLimit, 1) }

    public subscript(key: Key) -> GATTDatabase? { databases[key] }

    /// The UUID of an attribute, without copying its database.
    func uuid(_ key: Key, _ handle: UInt16) -> BluetoothUUID? { databases[key]?.uuid(of: handle) }

    /// Every database, in the order they were first seen.
    public var all: [(key: Key, database: GATTDatabase)] { order.compactMap { k in databases[k].map { (k, $0) } } }

    /// Changes whenever any database does: caches of what a handle is compare it.
    private(set) var generation = 0

    func update(_ key: Key, _ change: (inout GATTDatabase) -> Void) {
        generation &+= 1
        if databases[key] == nil {
            if order.count >= databaseLimit { databases[order.removeFirst()] = nil }
            order.append(key)
            databases[key] = GATTDatabase()
        }
        change(&databases[key, default: GATTDatabase()])
    }
}
