import BTLensCrypto
import XCTest

final class DebugKeyTests: XCTestCase {
    // P-256 data set 1 (Vol 2 Part G §7.1.2.1): A is the debug key pair, B a peer; their DHKey is f5's W
    // of Vol 3 Part H Appendix D.
    let peerX = "1ea1f0f0 1faf1d96 09592284 f19e4c00 47b58afd 8615a69f 559077b2 2faaa190"
    let peerY = "4c55f33e 429dad37 7356703a 9ab85160 472d1130 e28e3676 5f89aff9 15b1214a"
    let dhKey = "ec0234a357c8ad05341010a60a397d9b99796b13b4f866f1868d34f373bfa698"
    var peerKey: [UInt8] { onAir(peerX) + onAir(peerY) }
    var debugKey: [UInt8] { SecureConnectionsDebugKey.publicKeyX + SecureConnectionsDebugKey.publicKeyY }

    // Vol 3 Part H §2.3.5.6.1: the public key comes out of the private key.
    func testPublicKeyFromPrivateKey() throws {
        let derived = SecureConnectionsKeys.publicKey(privateKey: SecureConnectionsDebugKey.privateKey)
        XCTAssertEqual(derived, debugKey)
        XCTAssertEqual(
            SecureConnectionsDebugKey.publicKeyX,
            onAir("20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6"))
        XCTAssertTrue(SecureConnectionsDebugKey.isDebugKey(debugKey))
        XCTAssertFalse(SecureConnectionsDebugKey.isDebugKey(peerKey))
    }

    func testDHKey() {
        XCTAssertEqual(SecureConnectionsDebugKey.dhKey(peerKey: peerKey)?.hex, dhKey)
    }

    // f5 of Appendix D, its DHKey now computed: Na, Nb as in Pairing Random, addresses as on air.
    func testLTKWhenEitherSideUsesTheDebugKey() {
        let ltk = { (initiatorKey: [UInt8], responderKey: [UInt8]) in
            SecureConnectionsDebugKey.ltk(
                initiatorKey: initiatorKey, responderKey: responderKey,
                na: onAir("d5cb8454 d177733e ffffb2ec 712baeab"), nb: onAir("a6e8e7cc 25a75f6e 216583f7 ff3dc4cf"),
                initiatorType: 0, initiator: onAir("56123737bfce"), responderType: 0, responder: onAir("a713702dcfc1"))
        }
        XCTAssertEqual(ltk(debugKey, peerKey)?.hex, "6986791169d7cd23980522b594750a38")
        XCTAssertEqual(ltk(peerKey, debugKey)?.hex, "6986791169d7cd23980522b594750a38")
        XCTAssertNil(ltk(peerKey, peerKey), "no debug key")
    }

    // Data set 1 the other way round: B's private key with the debug public key gives the same DHKey.
    func testDHKeyFromThePeersSide() throws {
        let privateB = try key256("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd")
        XCTAssertEqual(SecureConnectionsKeys.publicKey(privateKey: privateB), peerKey)
        XCTAssertEqual(SecureConnectionsKeys.dhKey(privateKey: privateB, peerKey: debugKey)?.hex, dhKey)
        XCTAssertNil(SecureConnectionsKeys.publicKey(privateKey: Key256(high: 0, low: 0)))
        XCTAssertNil(SecureConnectionsKeys.publicKey(privateKey: Key256(high: .max, low: .max)))
    }

    func testMalformedPeerKeysAreRefused() {
        XCTAssertNil(SecureConnectionsDebugKey.dhKey(peerKey: peerKey.dropLast()))
        var offCurve = peerKey
        offCurve[40] ^= 1
        XCTAssertNil(SecureConnectionsDebugKey.dhKey(peerKey: offCurve))
        XCTAssertNil(SecureConnectionsDebugKey.dhKey(peerKey: [UInt8](repeating: 0, count: 64)))
    }
}
