import BTLensCore

/// ATT state of one connection: MTU, the outstanding request of each client, queued prepared
/// writes and long reads in progress. Freed on disconnection.
struct ATTBearer {
    /// Bytes of prepared writes kept per client; ATT values are at most 512 bytes each.
    static let prepareQueueLimit = 65_536
    static let defaultLEMTU = 23

    struct Request {
        var opcode: ATTOpcode
        var handle: UInt16?
        var type: BluetoothUUID?
        var offset: Int = 0
    }

    struct Prepared {
        var handle: UInt16
        var offset: Int
        var value: [UInt8]
        var record: Int
    }

    struct LongRead {
        var handle: UInt16
        var value: [UInt8]
        var firstRecord: Int
    }

    var mtu = defaultLEMTU
    /// Per requesting direction (index by `Direction.rawValue`).
    var clientMTU: [Int?] = [nil, nil]
    var pending: [Request?] = [nil, nil]
    var prepared: [[Prepared]] = [[], []]
    var preparedBytes = [0, 0]
    var longRead: [LongRead?] = [nil, nil]
}
