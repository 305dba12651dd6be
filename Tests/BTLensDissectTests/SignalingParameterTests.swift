import BTLensCore
import XCTest

@testable import BTLensDissect

/// Hex vectors for the L2CAP signalling commands that change no channel (Core Vol 3 Part A §4, §5),
/// each field as the JSONL writes it: `key=value`.
final class SignalingParameterTests: XCTestCase {
    let connection = ConnectionKey(index: 0, handle: 0x0b)
    let place = RecordPlace(record: 1, time: Timestamp(microseconds: 0))

    func shown(_ fields: [(String, FieldValue)]?) -> [String] {
        (fields ?? []).map { key, value in
            switch value {
            case .int(let v), .hex(let v, _): "\(key)=\(v)"
            case .string(let s): "\(key)=\(s)"
            case .bool(let b): "\(key)=\(b)"
            case .bytes(let b): "\(key)=\(Hex.string(b))"
            case .decimal(let units, let scale): "\(key)=\(FieldValue.decimalText(units, scale: scale))"
            }
        }
    }

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
}
