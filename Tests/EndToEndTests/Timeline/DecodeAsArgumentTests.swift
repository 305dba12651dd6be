import BTLensDissect
import XCTest

@testable import btlens

/// `--decode-as` is parsed by the CLI.
final class DecodeAsArgumentTests: XCTestCase {
    func testDecodeAsArguments() {
        XCTAssertEqual(DecodeAs(argument: "0x0041=rfcomm"), .cid(0x41, psm: 3))
        XCTAssertEqual(DecodeAs(argument: "41=ATT"), .cid(0x41, psm: 0x1f))
        XCTAssertEqual(DecodeAs(argument: "rfcomm:3=iap2"), .rfcommIAP2(channel: 3))
        XCTAssertNil(DecodeAs(argument: "bogus"))
        XCTAssertEqual(DecodeAs(argument: "0x41=avdtp"), .cid(0x41, psm: 0x19))
        XCTAssertEqual(DecodeAs(argument: "0x42=avdtp-media"), .avdtpMedia(cid: 0x42))
        XCTAssertEqual(DecodeAs(argument: "0x43=AVCTP"), .cid(0x43, psm: 0x17))
        XCTAssertEqual(DecodeAs(argument: "0x44=avctp-browsing"), .cid(0x44, psm: 0x1b))
        XCTAssertEqual(DecodeAs(argument: "rfcomm:3=hfp"), .rfcommHFP(channel: 3))
        XCTAssertEqual(DecodeAs(argument: "psm:0x0080=aurora-headphones"), .psm(0x80, dissector: "aurora-headphones"))
        XCTAssertNil(DecodeAs(argument: "0x41=bnep"))
        XCTAssertEqual(DecodeAs(argument: "rfcomm:3=obex"), .rfcommDissector(channel: 3, dissector: "obex"))
        XCTAssertEqual(DecodeAs(argument: "rfcomm:30=acme-band"), .rfcommDissector(channel: 30, dissector: "acme-band"))
        XCTAssertNil(DecodeAs(argument: "rfcomm:0=acme-band"), "server channels are 1 to 30")
        XCTAssertNil(DecodeAs(argument: "rfcomm:31=iap2"))
        XCTAssertEqual(DecodeAs(argument: "l2cap:0x0041=acme-band"), .l2capDissector(cid: 0x41, dissector: "acme-band"))
        XCTAssertEqual(DecodeAs(argument: "L2CAP:70=acme-band"), .l2capDissector(cid: 0x70, dissector: "acme-band"))
        XCTAssertNil(DecodeAs(argument: "l2cap:0x0004=acme-band"), "a fixed channel is no dynamic one")
        XCTAssertNil(DecodeAs(argument: "l2cap:0x0041="))
        XCTAssertEqual(DecodeAs(argument: "att:0x0025=acme-band"), .attHandle(0x25, dissector: "acme-band"))
        XCTAssertEqual(
            DecodeAs(argument: "att:0x0025=acme-band/AncModeValue"),
            .attHandle(0x25, dissector: "acme-band", message: "AncModeValue"))
        XCTAssertNil(DecodeAs(argument: "att:0x0025=acme-band/"))
        XCTAssertNil(DecodeAs(argument: "att:0x0025=/AncModeValue"))
        XCTAssertNil(DecodeAs(argument: "att:0x0025=a/b/c"))
        XCTAssertNil(DecodeAs(argument: "psm:zz=aurora-headphones"))
        XCTAssertNil(DecodeAs(argument: "rfcomm:x=iap2"))
    }
}
