import BTLensCore
import BTLensCrypto

/// What a connection's SMP pairing gave away over the air (Core v5.4 Vol 3 Part H §2.3): the PDUs
/// its keys are computed from, kept until the key is derived, and the keys it distributed.
struct LLPairing {
    /// Pairing Request and Response, code included (7 octets each).
    var request: [UInt8]?
    var response: [UInt8]?
    /// Pairing Confirm, Random and Public Key of each side (0 the initiator, the central; 1 the responder).
    var confirm: [[UInt8]?] = [nil, nil]
    var random: [[UInt8]?] = [nil, nil]
    var publicKey: [[UInt8]?] = [nil, nil]
    /// The key pairing made for the encryption that follows it (legacy pairing's STK, Secure
    /// Connections' LTK), and how the timeline names it.
    var derived: (key: Key128, source: String)?
    /// An LTK a side sent in Encryption Information, until its Central Identification names it.
    var distributed: [Key128?] = [nil, nil]

    /// A new pairing at a Pairing Request.
    mutating func restart(_ request: [UInt8]) {
        self = LLPairing()
        self.request = request
    }
}

/// A long-term key a pairing in the capture distributed, found again by the EDIV and Rand of a
/// later LL_ENC_REQ (legacy pairing), or by its device (Secure Connections: EDIV and Rand zero).
struct LLLearntKey {
    var key: Key128
    var ediv: UInt16
    var rand: [UInt8]
    var device: BDAddr?
    var source: String
}
