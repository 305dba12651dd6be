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
    /// Each side's PDUs heard since its last that decrypted, whose MIC failed: damaged ones used a
    /// counter each, or the sniffer missed more than the window.
    var failed: [UInt64] = [0, 0]
    /// The record of the session's LL_ENC_REQ, once LL_START_ENC_REQ has used it, and whether its
    /// LL_ENC_RSP was heard.
    var sessionRecord: Int?
    var usedResponse = false
    /// Why the keys given were not tried on this session: none of them decrypted an earlier session
    /// of the connection (its LTK does not change), or the capture's budget of trials is spent.
    var givenKeysFailed = false
    var givenKeysSkipped: String?

    struct Candidate {
        var cipher: LLCipher
        /// How the timeline names the key: `--ltk 1`, `the STK of Just Works pairing (#8)`.
        var source: String
        /// Given by the user (`--ltk`, `--keys`), not derived from the capture.
        var given: Bool
    }

    /// Counters tried past the expected one: PDUs the sniffer did not hear still advanced the sender's.
    /// Each failed PDU widens it by 4 (to at most 64), so that a long gap is caught up with.
    static let counterWindow: UInt64 = 4
    static let widestWindow: UInt64 = 64

    func window(_ side: Int) -> ClosedRange<UInt64> {
        counters[side]...(counters[side] + min(Self.counterWindow + 4 * failed[side], Self.widestWindow))
    }

    /// A new session at LL_START_ENC_REQ with `keys` to try.
    mutating func start(_ keys: [(key: Key128, source: String, given: Bool)]) {
        active = true
        cipher = nil
        said = false
        counters = [0, 0]
        failed = [0, 0]
        candidates = []
        // A session's set-up is used once: the next needs its own LL_ENC_REQ and LL_ENC_RSP.
        defer { (request, response) = (nil, nil) }
        sessionRecord = request?.record
        usedResponse = response != nil
        guard let q = request, let s = response else { return }
        for k in keys {
            if let cipher = LLCipher(ltk: k.key, skdm: q.skdm, ivm: q.ivm, skds: s.skds, ivs: s.ivs) {
                candidates.append(Candidate(cipher: cipher, source: k.source, given: k.given))
            }
        }
    }

    /// The first candidate whose MIC checks on this PDU (counters 0 and the window after it), which
    /// becomes the session's cipher; nil when none does.
    mutating func firstDecrypt(_ first: UInt8, _ payload: ArraySlice<UInt8>, side: Int) -> (
        plain: [UInt8], source: String, counter: UInt64
    )? {
        for candidate in candidates {
            for counter in window(side) {
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

    /// The PDU decrypted with the session's cipher at a counter of the side's window, with the
    /// counter that checked and how many of the counters skipped were failed PDUs heard; nil when no
    /// MIC checks (counted as failed).
    mutating func decrypt(_ first: UInt8, _ payload: ArraySlice<UInt8>, side: Int) -> (
        plain: [UInt8], counter: UInt64, failed: UInt64
    )? {
        guard let cipher else { return nil }
        for counter in window(side) {
            if let plain = cipher.decrypt(header: first, payload: payload, counter: counter, fromCentral: side == 0) {
                let heard = failed[side]
                counters[side] = counter + 1
                failed[side] = 0
                return (plain, counter, heard)
            }
        }
        failed[side] += 1
        return nil
    }
}
