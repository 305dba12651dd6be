import BTLensCrypto
import XCTest

/// Arbitrary bytes through every entry point that takes capture or key-file values: nothing traps, and
/// nothing but the right sizes is accepted.
final class HostileInputTests: XCTestCase {
    /// A fixed-seed generator (SplitMix64), so a failure repeats.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func bytes(_ random: inout Seeded, upTo limit: Int) -> [UInt8] {
        (0..<Int.random(in: 0...limit, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    func testRandomPDUsNeverDecrypt() throws {
        var random = Seeded(state: 43)
        let cipher = try XCTUnwrap(
            LLCipher(
                ltk: Key128(1), skdm: [UInt8](0..<8), ivm: [1, 2, 3, 4], skds: [UInt8](8..<16), ivs: [5, 6, 7, 8]))
        for _ in 0..<2000 {
            let payload = bytes(&random, upTo: 300)
            let counter = UInt64.random(in: 0...UInt64.max, using: &random) >> UInt64.random(in: 0...63, using: &random)
            let header = UInt8.random(in: 0...255, using: &random)
            XCTAssertNil(
                cipher.decrypt(header: header, payload: payload, counter: counter, fromCentral: counter & 1 == 0))
        }
    }

    func testRandomSizesAreRefusedUnlessRight() {
        var random = Seeded(state: 7)
        for _ in 0..<2000 {
            let value = bytes(&random, upTo: 70)
            XCTAssertEqual(Key128(littleEndian: value) != nil, value.count == 16)
            XCTAssertEqual(Key256(littleEndian: value) != nil, value.count == 32)
            XCTAssertEqual(PairingFeatures(pdu: value) != nil, value.count == 7)
            XCTAssertEqual(
                PairingAddress(type: value.first ?? 0, littleEndian: value) != nil, value.count == 6 && value[0] <= 1)
            XCTAssertEqual(
                LLCipher(ltk: Key128(0), skdm: value, ivm: value.prefix(4), skds: value, ivs: value.suffix(4)) != nil,
                value.count == 8)
            XCTAssertNil(SecureConnectionsDebugKey.dhKey(peerKey: value))
            XCTAssertNil(Key128(hex: String(decoding: value, as: UTF8.self)))
        }
    }
}
