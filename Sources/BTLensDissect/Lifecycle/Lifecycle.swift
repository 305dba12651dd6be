import BTLensCore

/// What happened on one connection, step by step, as HCI and ATT tell it: the facts a summary
/// shows and the findings are drawn from. Kept in `ConnectionInfo`, so it is freed (or moved to
/// the bounded history) with the connection.
public struct Lifecycle: Sendable {
    /// A step and where it happened.
    public struct Step: Sendable, Equatable {
        public var record: Int
        public var time: Timestamp
    }

    /// LE connection parameters (Core Vol 6, Part B, §4.5.1): interval in 1.25 ms units, latency in
    /// events, supervision timeout in 10 ms units.
    public struct Parameters: Sendable, Equatable {
        public var interval: UInt16
        public var latency: UInt16
        public var timeout: UInt16
        public var intervalMicroseconds: Int { Int(interval) * 1250 }
        public var timeoutMilliseconds: Int { Int(timeout) * 10 }
        public init(interval: UInt16, latency: UInt16, timeout: UInt16) {
            self.interval = interval
            self.latency = latency
            self.timeout = timeout
        }
    }

    /// A CCCD write: which characteristic it enables, and how.
    public struct Subscription: Sendable, Equatable {
        public enum Kind: String, Sendable { case notify, indicate, both, off }
        /// The characteristic's value handle (the CCCD's handle minus one when discovery did not say).
        public var valueHandle: UInt16
        public var cccdHandle: UInt16
        public var uuid: BluetoothUUID?
        public var kind: Kind
        public var step: Step
    }

    public var parameters: Parameters?
    public var parameterUpdates = 0
    public var phy: (tx: UInt8, rx: UInt8)?
    public var dataLength: (tx: Int, rx: Int)?
    /// The first Encryption Change (or Key Refresh) and its status.
    public var encryption: (step: Step, status: HCIErrorCode)?
    public var encrypted = false
    /// The first SMP Pairing Request or Security Request, and the failure if pairing failed.
    public var pairingStarted: Step?
    public var pairingFailure: (step: Step, reason: SMPFailureReason)?
    /// The Pairing Request's IO capability, OOB flag and AuthReq, until its response says the method.
    var pairingRequest: (io: UInt8, oob: Bool, auth: UInt8)?
    /// What the Pairing Request and Response imply (`SMPInfo.method`): `LE Secure Connections, Numeric Comparison`.
    public var pairingMethod: String?
    public var attMTU: Int?
    public var firstATT: Step?
    /// The first discovery response (primary services, characteristics, descriptors).
    public var discovery: Step?
    public var subscriptions: [Subscription] = []
    /// The last record with ACL traffic on the connection (before a supervision timeout, the gap).
    public var lastTraffic: Step?
    public var attErrors = 0
    public static let subscriptionLimit = 64
    /// A K-frame went over an L2CAP credit-based channel.
    public var usedCreditChannel = false
    /// AVDTP stream endpoints, by SEID (at most 62, the SEID space).
    public var audioStreams: [AudioStream] = []

    public init() {}
}
