import BTLensCapture
import BTLensCore
import XCTest

@testable import BTLensDissect

/// The registration list binds each protocol where it is read and orders the layers' closing; the
/// L2CAP and RFCOMM tables hand data to the protocol bound there.
final class ProtocolBindingTests: XCTestCase {
    /// A layer that may still hand data to another while it closes comes before it: iAP2 settles its
    /// guesses into RFCOMM's bound streams, every stream may raise requests the dissector layer reports.
    func testTheCloseOrderIsTheRegistrationList() {
        XCTAssertEqual(
            Analyzer { _ in }.closeOrder,
            [
                "ACLLayer", "ATTLayer", "L2CAPLayer", "CreditChannelLayer", "ForcedChannelLayer", "AVCTPLayer",
                "AVDTPLayer", "SDPLayer", "IAP2Layer", "HFPLayer", "RFCOMMLayer", "DissectorLayer",
            ])
    }

    func testL2CAPBindsFixedChannelsAndPSMs() {
        var bindings = L2CAPBindings()
        let att = ATTStub()
        bindings.bind(att)
        bindings.bind(AVStub())
        guard case .layer(let fixed)? = bindings.fixed[Int(L2CAPChannel.att)] else { return XCTFail("CID 4 unbound") }
        XCTAssert(fixed === att)
        guard case .signaling? = bindings.fixed[Int(L2CAPChannel.leSignaling)] else { return XCTFail("signalling") }
        XCTAssertNil(bindings.fixed[Int(L2CAPChannel.smp)])
        XCTAssert(bindings.layer(psm: PSM.att) === att)
        XCTAssert(bindings.layer(psm: PSM.avctpBrowsing) is AVStub)
        XCTAssertNil(bindings.layer(psm: PSM.rfcomm))
    }

    /// A protocol that claims by its syntax is asked before one that takes any channel, whatever the
    /// registration order; an SDP listing takes a channel from the latter, never from the former.
    func testRFCOMMAsksBySyntaxFirstAndListingsKeepPrecedence() {
        var bindings = RFCOMMBindings()
        let any = AnyChannelStub(listedBy: 0x1101)
        let at = CarrierStub(listedBy: 0x111e)
        bindings.bind(any)
        bindings.bind(at)
        let connection = ConnectionKey(index: 0, handle: 1)
        let a = RFCOMMChannelKey(connection: connection, dlci: 2)
        let b = RFCOMMChannelKey(connection: connection, dlci: 4)
        let c = RFCOMMChannelKey(connection: connection, dlci: 6)
        XCTAssert(bindings.carrier(a, Array("AT+BRSF=1\r".utf8)[...]) === at)
        XCTAssert(bindings.carrier(b, [0xff, 0x5a][...]) === any)
        XCTAssert(bindings.carrier(b, Array("AT\r".utf8)[...]) === any, "a channel's protocol is kept")
        bindings.listed(service(0x111e), [b])
        XCTAssert(bindings.carrier(b, [][...]) === at)
        bindings.listed(service(0x1101), [a, c])
        XCTAssert(bindings.carrier(a, [][...]) === at)
        XCTAssert(bindings.carrier(c, Array("AT\r".utf8)[...]) === any)
        XCTAssertEqual(any.listedChannels, [a, c])
        bindings.close(connection)
        XCTAssert(bindings.carrier(c, Array("AT\r".utf8)[...]) === at)
    }

    private func service(_ uuid: UInt16) -> SDPService {
        var s = SDPService(name: nil, classes: [], rfcommChannel: 1, isIAP2: false)
        s.classUUIDs = [.bit16(uuid)]
        return s
    }
}

private final class ATTStub: L2CAPChannelLayer {
    static let cids = [L2CAPChannel.att]
    static let psms = [PSM.att]
    func l2capPDU(_ pdu: consuming L2CAPPDU, _ channel: L2CAPChannelMap.Key, psm: UInt16?, _ r: CaptureRecord) {}
}

private final class AVStub: L2CAPChannelLayer {
    static let psms = [PSM.avctp, PSM.avctpBrowsing]
    func l2capPDU(_ pdu: consuming L2CAPPDU, _ channel: L2CAPChannelMap.Key, psm: UInt16?, _ r: CaptureRecord) {}
}

/// Claims a channel whose first data begins with "A".
private class CarrierStub: RFCOMMChannelLayer {
    class var takesAnyChannel: Bool { false }
    let listedBy: UInt16
    var listedChannels: [RFCOMMChannelKey] = []
    init(listedBy: UInt16) { self.listedBy = listedBy }
    func isListed(by service: SDPService) -> Bool { service.classUUIDs.contains { $0.sig16 == listedBy } }
    func listed(_ channel: RFCOMMChannelKey) { listedChannels.append(channel) }
    func claims(_ channel: RFCOMMChannelKey, _ bytes: ArraySlice<UInt8>) -> Bool {
        Self.takesAnyChannel || bytes.first == 0x41
    }
    func data(_ bytes: ArraySlice<UInt8>, _ channel: RFCOMMChannelKey, _ direction: Direction, _ r: CaptureRecord) {}
}

private final class AnyChannelStub: CarrierStub {
    override class var takesAnyChannel: Bool { true }
}
