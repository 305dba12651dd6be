import BTLensCore
import XCTest

@testable import BTLensDissect

/// Hex vectors for the L2CAP signalling commands that change no channel (Core Vol 3 Part A §4, §5)
/// and for SDP's requests and service class names (Core Vol 3 Part B §4; Assigned Numbers §3.3),
/// each field as the JSONL writes it: `key=value`.
final class SignalingParameterTests: XCTestCase {
    let connection = ConnectionKey(index: 0, handle: 0x0b)
    let place = RecordPlace(record: 1, time: Timestamp(microseconds: 0))

    func signaling(_ hex: String) -> [String] {
        var map = L2CAPChannelMap()
        let out = map.decode((Hex.bytes(hex) ?? [])[...], connection: connection, direction: .sent, at: place)
        XCTAssertEqual(out.diagnostics.count, 0, hex)
        return shown(out.commands.first?.fields)
    }

    func testConfigurationOptions() {
        // §4.4 Configuration Request to CID 0x0040, no flags: MTU 672 (§5.1), flush timeout 0xffff
        // (§5.2), Enhanced Retransmission mode, window 10, 3 transmissions, 2000 and 12000 ms, MPS
        // 1010 (§5.4), no FCS (§5.5).
        XCTAssertEqual(
            signaling(
                "04 01 1a 00 40 00 00 00 01 02 a0 02 02 02 ff ff 04 09 03 0a 03 d0 07 e0 2e f2 03 05 01 00"),
            [
                "cid=64", "flags=0", "mtu=672", "flush_timeout=65535", "mode=Enhanced Retransmission",
                "tx_window=10", "max_transmit=3", "retransmission_timeout_ms=2000", "monitor_timeout_ms=12000",
                "mps=1010", "fcs=No FCS",
            ])
        // §4.5 Configuration Response from CID 0x0041: continuation flag, unacceptable, MTU 48; an
        // option of a type not named (a hint, 0x80 | 0x7e) gives its type.
        XCTAssertEqual(
            signaling("05 02 0c 00 41 00 01 00 01 00 01 02 30 00 fe 00"),
            [
                "cid=65", "flags=1", "result=1", "result_name=Unacceptable parameters", "mtu=48", "option=126",
            ])
    }

    func testInformationRequestsAndResponses() {
        // §4.10 Information Request: extended features.
        XCTAssertEqual(signaling("0a 01 02 00 02 00"), ["info_type=2", "info_type_name=Extended Features Supported"])
        // §4.11 Information Response: fixed channels, success, signalling + connectionless + ATT... bits.
        XCTAssertEqual(
            signaling("0b 02 0c 00 03 00 00 00 86 00 00 00 00 00 00 00"),
            [
                "info_type=3", "info_type_name=Fixed Channels Supported", "result=0", "result_name=Success",
                "fixed_channels=8600000000000000",
            ])
        XCTAssertEqual(
            signaling("0b 03 08 00 02 00 00 00 b8 00 00 00"),
            [
                "info_type=2", "info_type_name=Extended Features Supported", "result=0", "result_name=Success",
                "extended_features=184",
            ])
        // Not supported: no data follows.
        XCTAssertEqual(
            signaling("0b 04 04 00 01 00 01 00"),
            ["info_type=1", "info_type_name=Connectionless MTU", "result=1", "result_name=Not supported"])
    }

    func testConnectionParameterUpdateAndRejects() {
        // §4.20 Connection Parameter Update Request: interval 6 to 12 (×1.25 ms), latency 0, timeout 500.
        XCTAssertEqual(
            signaling("12 01 08 00 06 00 0c 00 00 00 f4 01"),
            [
                "interval_min=6", "interval_min_ms=7.50", "interval_max=12", "interval_max_ms=15.00", "latency=0",
                "timeout=500", "timeout_ms=5000",
            ])
        // §4.21 Response: rejected.
        XCTAssertEqual(signaling("13 01 02 00 01 00"), ["result=1", "result_name=Rejected"])
        // §4.1 Command Reject: not understood.
        XCTAssertEqual(signaling("01 05 02 00 00 00"), ["reason=0", "reason_name=Command not understood"])
        // §4.3 Connection Response: result pending, status authorization pending.
        XCTAssertEqual(
            signaling("03 06 08 00 00 00 40 00 01 00 02 00"),
            ["destination_cid=0", "source_cid=64", "result=1", "status=2"])
    }

    func testServiceClassNamesFromAssignedNumbers() {
        XCTAssertEqual(SDPDecoder.describe([0x11, 0x0f]), "A/V Remote Control Controller")
        XCTAssertEqual(SDPDecoder.describe([0x11, 0x2d]), "SIM Access")
        XCTAssertEqual(SDPDecoder.describe([0x12, 0x03]), "Generic Audio")
        XCTAssertEqual(SDPDecoder.describe([0x12, 0x04]), "Generic Telephony")
        XCTAssertEqual(SDPDecoder.describe([0x00, 0x00, 0x11, 0x1e]), "Handsfree")
        // A 128-bit UUID on the Base UUID (Core Vol 3 Part B §2.5.1) is its 16-bit one.
        let base: [UInt8] = [
            0x00, 0x00, 0x11, 0x0b, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5f, 0x9b, 0x34, 0xfb,
        ]
        XCTAssertEqual(SDPDecoder.describe(base), "Audio Sink")
        XCTAssertEqual(SDPDecoder.describe([0xab, 0xcd]), "0xabcd")
        // Another 128-bit UUID in its dashed form, as ATT gives one (§2.5.1: big-endian in SDP).
        XCTAssertEqual(
            SDPDecoder.describe(Array(0...15)), "00010203-0405-0607-0809-0a0b0c0d0e0f")
    }

    func testSDPRequestsSayWhatTheyAskFor() {
        // §4.7.1 Service Search Attribute Request: pattern {Audio Sink}, 656 bytes, attributes
        // 0x0001, 0x0004 and the range 0x0100-0x01ff; no continuation.
        var d = SDPDecoder()
        let request = "06 00 00 00 15 35 03 19 11 0b 02 90 35 0b 09 00 01 09 00 04 0a 01 00 01 ff 00"
        XCTAssertEqual(
            shown(d.decode((Hex.bytes(request) ?? [])[...]).0?.fields),
            ["search_pattern=Audio Sink", "max_bytes=656", "attribute_ids=0x0001 0x0004 0x0100-0x01ff"])
        // §4.5.1 Service Search Request: {SIM Access}, at most 16 records.
        XCTAssertEqual(
            shown(d.decode((Hex.bytes("02 00 01 00 08 35 03 19 11 2d 00 10 00") ?? [])[...]).0?.fields),
            ["search_pattern=SIM Access", "max_records=16"])
        // §4.5.2 Service Search Response: 1 record of 1, handle 0x00010004.
        XCTAssertEqual(
            shown(d.decode((Hex.bytes("03 00 01 00 09 00 01 00 01 00 01 00 04 00") ?? [])[...]).0?.fields),
            ["total_records=1", "record_handles=0x00010004"])
        // §4.6.1 Service Attribute Request: record 0x00010004, 0xffff bytes, the whole range.
        XCTAssertEqual(
            shown(
                d.decode((Hex.bytes("04 00 02 00 0e 00 01 00 04 ff ff 35 05 0a 00 00 ff ff 00") ?? [])[...]).0?.fields),
            ["record_handle=65540", "max_bytes=65535", "attribute_ids=0x0000-0xffff"])
        // §4.4.1 Error Response: invalid continuation state.
        XCTAssertEqual(
            shown(d.decode((Hex.bytes("01 00 03 00 02 00 05") ?? [])[...]).0?.fields),
            ["error_code=5", "error_name=Invalid Continuation State"])
    }
}
