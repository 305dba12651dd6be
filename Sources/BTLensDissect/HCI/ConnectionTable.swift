import BTLensCore

public enum Transport: String, Sendable {
    case le = "LE"
    case bredr = "BR/EDR"
    case unknown = "unknown"
}
public enum Role: String, Sendable { case central, peripheral, unknown }

public struct ConnectionKey: Hashable, Sendable, Comparable {
    public var index: UInt16
    public var handle: UInt16
    public init(index: UInt16, handle: UInt16) {
        self.index = index
        self.handle = handle
    }
    public static func < (a: ConnectionKey, b: ConnectionKey) -> Bool { (a.index, a.handle) < (b.index, b.handle) }
}

/// What is known of one connection: from its Connection Complete, or inferred from traffic.
public struct ConnectionInfo: Sendable {
    public var key: ConnectionKey
    public var address: BDAddr?
    /// LE address type (0 public, 1 random, …) when the event gave one.
    public var addressType: UInt8?
    public var transport: Transport
    /// The local (phone's) role.
    public var role: Role
    public var openedRecord: Int?
    public var openedTime: Timestamp?
    public var closedRecord: Int?
    public var closedTime: Timestamp?
    public var disconnectReason: HCIErrorCode?
    /// Ended by a Connection Complete that reused its handle, with no disconnection seen (closed there).
    public var replaced = false
    /// True when the capture started after the connection was made.
    public var inferred: Bool
    /// What happened on it, step by step.
    public var lifecycle = Lifecycle()

    /// The ATT_MTU in force: the one an MTU exchange set, or on an LE link the capture saw open without
    /// one the default of 23 (Core Vol 3 Part F §3.2.8). nil when unknown: on BR/EDR without an exchange,
    /// where ATT may not run at all, and on a link that began before the capture, whose exchange may too.
    public var attMTU: (value: Int, isDefault: Bool)? {
        if let m = lifecycle.attMTU { return (m, false) }
        return transport == .le && !inferred ? (ATTBearer.defaultLEMTU, true) : nil
    }

    mutating func changeLifecycle(_ change: (inout Lifecycle) -> Void) { change(&lifecycle) }

    mutating func learnTransport(_ t: Transport) { if transport == .unknown { transport = t } }
}

/// handle → connection, per controller. Holds only open connections and a bounded history.
public struct ConnectionTable: Sendable {
    /// Closed connections kept for summaries (`Limits.connectionHistory`); beyond it the oldest are
    /// counted, not kept.
    public let historyLimit: Int

    public private(set) var open: [ConnectionKey: ConnectionInfo] = [:]
    /// A ring once full: `historyStart` is the oldest (overwriting beats removing from the front).
    private var history: [ConnectionInfo] = []
    private var historyStart = 0
    public private(set) var historyDropped = 0
    /// Peers the host asked to connect to: a Connection Complete for them means we are central.
    private var pendingCentral: Set<BDAddr> = []
    private var pendingPeripheral: Set<BDAddr> = []
    /// Controllers whose host cancelled a connection attempt that has not completed yet.
    private var cancelling: Set<UInt16> = []

    public init(historyLimit: Int = Limits().connectionHistory) { self.historyLimit = max(historyLimit, 1) }

    public subscript(key: ConnectionKey) -> ConnectionInfo? { open[key] }

    /// Whether a connection is open, without copying what is known of it (asked once per ACL record).
    public func isOpen(_ key: ConnectionKey) -> Bool { open.index(forKey: key) != nil }

    mutating func hostCreatesConnection(to address: BDAddr) { pendingCentral.insert(address) }
    mutating func peerRequestsConnection(from address: BDAddr) { pendingPeripheral.insert(address) }
    mutating func hostCancelsConnection(index: UInt16) { cancelling.insert(index) }
    mutating func cancelRefused(index: UInt16) { cancelling.remove(index) }

    /// Whether a Connection Complete on `index` ends an attempt the host cancelled: after a successful
    /// cancel the controller completes it with Unknown Connection Identifier (Core Vol 4 Part E §7.1.7, §7.8.13).
    mutating func completesCancelledAttempt(index: UInt16, status: HCIErrorCode) -> Bool {
        cancelling.remove(index) != nil && status.rawValue == 0x02
    }

    /// A Connection Complete; returns the connection it replaced if the handle was still open.
    mutating func opened(_ info: ConnectionInfo) -> ConnectionInfo? {
        var info = info
        if info.role == .unknown, let a = info.address {
            if pendingCentral.remove(a) != nil {
                info.role = .central
            } else if pendingPeripheral.remove(a) != nil {
                info.role = .peripheral
            }
        }
        let previous = open.updateValue(info, forKey: info.key)
        guard var p = previous else { return nil }
        // It ended where its handle was taken again: it is not still open, and what comes after is not its.
        (p.closedRecord, p.closedTime, p.replaced) = (info.openedRecord, info.openedTime, true)
        remember(p)
        return p
    }

    mutating func closed(_ key: ConnectionKey, record: Int, time: Timestamp, reason: HCIErrorCode) -> ConnectionInfo? {
        guard var info = open.removeValue(forKey: key) else { return nil }
        info.closedRecord = record
        info.closedTime = time
        info.disconnectReason = reason
        remember(info)
        return info
    }

    /// Traffic on a handle with no Connection Complete: the capture began mid-connection.
    mutating func infer(_ key: ConnectionKey, record: Int, time: Timestamp, transport: Transport) -> ConnectionInfo {
        let info = ConnectionInfo(
            key: key, address: nil, addressType: nil, transport: transport, role: .unknown,
            openedRecord: nil, openedTime: nil, closedRecord: nil, closedTime: nil,
            disconnectReason: nil, inferred: true)
        open[key] = info
        return info
    }

    mutating func setRole(_ key: ConnectionKey, _ role: Role) { open[key]?.role = role }

    /// Records a step of an open connection's life.
    mutating func update(_ key: ConnectionKey, _ change: (inout Lifecycle) -> Void) {
        open[key]?.changeLifecycle(change)
    }

    /// Learns an inferred connection's transport from its traffic; in place (asked once per ATT PDU).
    mutating func setTransport(_ key: ConnectionKey, _ transport: Transport) {
        open[key]?.learnTransport(transport)
    }

    private mutating func remember(_ info: ConnectionInfo) {
        guard history.count >= historyLimit else { return history.append(info) }
        history[historyStart] = info
        historyStart = (historyStart + 1) % history.count
        historyDropped += 1
    }

    /// Every connection seen, closed ones first in the order they closed, then the open ones by handle.
    /// Built in one array of the final size: the history is the largest thing a long capture leaves.
    public var all: [ConnectionInfo] {
        var out: [ConnectionInfo] = []
        out.reserveCapacity(history.count + open.count)
        out += history[historyStart...]
        out += history[..<historyStart]
        out += open.values.sorted { $0.key < $1.key }
        return out
    }
}
