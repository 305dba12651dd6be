import BTLensCore
import BTLensCrypto

/// One connection's encryption as a sniffer follows it (Core v5.4 Vol 6 Part B §5.1.3, Part E):
/// the session's parameters from LL_ENC_REQ and LL_ENC_RSP, the key that decrypts it once a MIC
/// has checked, and each side's packet counter.
struct LLEncryption {
    /// LL_ENC_REQ's Rand, EDIV, SKDm and IVm, and its record.
    var request: (rand: [UInt8], ediv: UInt16, skdm: [UInt8], ivm: [UInt8], record: Int)?
    /// LL_ENC_RSP's SKDs and IVs.
    var response: (skds: [UInt8], ivs: [UInt8])?
    /// From LL_START_ENC_REQ until LL_PAUSE_ENC_RSP: non-empty data PDUs are encrypted and carry a MIC.
    var active = false
    /// The keys to try on the session's first encrypted PDU, made at LL_START_ENC_REQ.
    var candidates: [Candidate] = []
    /// The session's cipher once a key's MIC checked.
    var cipher: LLCipher?
    /// Said once a session: no key given (`ll.encrypted`), or none decrypts (`ll.key.wrong`).
    var said = false
    /// Said once a connection: the sniffer decrypted its PDUs itself.
    var bySniffer = false
    /// The packet counter of each side's next new PDU (0 the central's, 1 the peripheral's); an empty
    /// PDU is not encrypted and does not count (Vol 6 Part E §2.1).
    var counters: [UInt64] = [0, 0]

    struct Candidate {
        var cipher: LLCipher
        /// How the timeline names the key: `--ltk 1`, `the STK of Just Works pairing (#8)`.
        var source: String
    }

    /// Counters tried past the expected one: PDUs the sniffer did not hear still advanced the sender's.
    static let counterWindow: UInt64 = 4

    /// A new session at LL_START_ENC_REQ with `keys` to try.
    mutating func start(_ keys: [(Key128, String)]) {
        active = true
        cipher = nil
        said = false
        counters = [0, 0]
        candidates = []
        guard let q = request, let s = response else { return }
        for (key, source) in keys {
            if let cipher = LLCipher(ltk: key, skdm: q.skdm, ivm: q.ivm, skds: s.skds, ivs: s.ivs) {
                candidates.append(Candidate(cipher: cipher, source: source))
            }
        }
    }

    /// The first candidate whose MIC checks on this PDU (counters 0 and the window after it), which
    /// becomes the session's cipher; nil when none does.
    mutating func firstDecrypt(_ first: UInt8, _ payload: ArraySlice<UInt8>, side: Int) -> (
        plain: [UInt8], source: String, counter: UInt64
    )? {
        for candidate in candidates {
            for counter in counters[side]...(counters[side] + Self.counterWindow) {
                guard
                    let plain = candidate.cipher.decrypt(
                        header: first, payload: payload, counter: counter, fromCentral: side == 0)
                else { continue }
                cipher = candidate.cipher
                candidates = []
                counters[side] = counter + 1
                return (plain, candidate.source, counter)
            }
        }
        return nil
    }

    /// The PDU decrypted with the session's cipher at the side's counter or one of the window after
    /// it, with the counter that checked; nil when no MIC checks.
    mutating func decrypt(_ first: UInt8, _ payload: ArraySlice<UInt8>, side: Int) -> (plain: [UInt8], counter: UInt64)?
    {
        guard let cipher else { return nil }
        let expected = counters[side]
        for counter in expected...(expected + Self.counterWindow) {
            if let plain = cipher.decrypt(header: first, payload: payload, counter: counter, fromCentral: side == 0) {
                counters[side] = counter + 1
                return (plain, counter)
            }
        }
        return nil
    }
}
