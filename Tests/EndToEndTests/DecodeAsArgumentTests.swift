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
        XCTAssertNil(DecodeAs(argument: "0x41=avdtp"))
        XCTAssertNil(DecodeAs(argument: "rfcomm:x=iap2"))
    }
}
