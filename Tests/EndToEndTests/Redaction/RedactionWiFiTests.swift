import BTLensCapture
import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect
@testable import BTLensReport

/// iAP2's Wi-Fi information sharing messages (0x5700–0x5703) carry a network's SSID and
/// passphrase: under `--redact` their rows name the message only; other messages keep their
/// parameters.
final class RedactionWiFiTests: XCTestCase {
    func report(redact: Bool) throws -> Report {
        let reader = try CaptureFormat.open(MemorySource(LESession().bytes))
        var options = ReportBuilder.Options()
        options.redact = redact
        let builder = ReportBuilder(file: "wifi", info: reader.info, options: options)
        let messages: [(UInt16, String, [(String, FieldValue)])] = [
            (0x5700, "RequestWiFiInformation", []),
            (0x5701, "WiFiInformation", [("ssid", .string("Kitchen Mesh")), ("passphrase", .string("hunter2 horse"))]),
            (0x4e0a, "DeviceLanguageUpdate", [("language", .string("en"))]),
        ]
        for (i, (id, name, fields)) in messages.enumerated() {
            builder.event(
                Event(
                    record: i + 1, timestamp: Timestamp(microseconds: Int64(i)), direction: .sent, connection: 0x0b,
                    isTop: true, body: .iap2Control(IAP2ControlInfo(id: id, name: name, fields: fields))))
        }
        return builder.finish(connections: [], gatt: GATTStore())
    }

    func testTheRowsOfWiFiMessagesNameTheMessageOnly() throws {
        let plain = try report(redact: false).rows.map(\.text)
        XCTAssertTrue(plain[1].contains("hunter2 horse"), plain[1])
        XCTAssertEqual(
            try report(redact: true).rows.map(\.text),
            [
                "RequestWiFiInformation (0x5700) [Wi-Fi parameters redacted]",
                "WiFiInformation (0x5701) [Wi-Fi parameters redacted]", plain[2],
            ])
        XCTAssertTrue(plain[2].contains("language"), plain[2])
    }
}
