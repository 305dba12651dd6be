import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// Findings about a connection's life, each from a capture built to show it, with the records
/// that show it; and the lifecycle facts a summary is made of.
final class LifecycleTests: XCTestCase {
    let address: [UInt8] = [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa]

    /// The findings are also checked to be the same in `.counts` detail (as `stats` runs).
    func run(_ s: LESession) throws -> (findings: [String], connections: [ConnectionInfo], messages: [String: String]) {
        func run(_ detail: Analyzer.Detail) throws -> (
            findings: [String], connections: [ConnectionInfo], messages: [String: String]
        ) {
            var reader = try CaptureFormat.open(MemorySource(s.bytes))
            var found: [String] = []
            var messages: [String: String] = [:]
            let analyzer = try Pipeline.run(&reader, Configuration(detail: detail)) { e in
                guard let d = e.diagnostic, LifecycleDiagnostics.all.contains(d.kind) else { return }
                found.append("\(d.id) #\(e.record)")
                messages[d.id] = d.message
            }
            return (found, analyzer.connectionSummaries, messages)
        }
        let full = try run(.full)
        let counted = try run(.counts)
        XCTAssertEqual(counted.findings, full.findings)
        XCTAssertEqual(counted.messages, full.messages)
        XCTAssertEqual(
            counted.connections.map(\.lifecycle.subscriptions), full.connections.map(\.lifecycle.subscriptions))
        return full
    }

    func disconnected(_ s: inout LESession, _ handle: UInt16, reason: UInt8) -> Int {
        s.event(0x05, [0x00, UInt8(handle & 0xff), UInt8(handle >> 8), reason])
    }

    func testAFailedConnectionIsNamedAndExplained() throws {
        var s = LESession()
        s.command(
            0x200d,
            [0x60, 0x00, 0x30, 0x00, 0x00, 0x00] + address + [
                0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xf4, 0x01, 0x00, 0x00, 0x00, 0x00,
            ])
        let failed = s.event(
            0x3e, [0x01, 0x3e, 0x40, 0x00, 0x00, 0x00] + address + [0x18, 0x00, 0x00, 0x00, 0xf4, 0x01, 0x00])
        let r = try run(s)
        XCTAssertEqual(r.findings, ["hci.connection.failed #\(failed)"])
        XCTAssertEqual(
            r.messages["hci.connection.failed"],
            "connecting to AA:BB:CC:11:22:33 failed: Connection Failed to be Established; the connection was never established: the peer stopped advertising or is out of range"
        )
    }

    func testACancelledAttemptIsNoFailure() throws {
        var s = LESession()
        s.command(
            0x200d,
            [0x60, 0x00, 0x30, 0x00, 0x00, 0x00] + address + [
                0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xf4, 0x01, 0x00, 0x00, 0x00, 0x00,
            ])
        s.command(0x200e, [])
        s.event(0x0e, [0x01, 0x0e, 0x20, 0x00])
        // After a successful cancel the controller ends the attempt: status 0x02, every other field zero.
        let end = s.event(0x3e, [0x01, 0x02] + [UInt8](repeating: 0, count: 17))
        var reader = try CaptureFormat.open(MemorySource(s.bytes))
        var changes: [ConnectionChange] = []
        var diagnostics: [String] = []
        _ = try Pipeline.run(&reader) { e in
            if case .connection(let c) = e.body { changes.append(c) }
            if let d = e.diagnostic { diagnostics.append(d.id) }
        }
        XCTAssertEqual(diagnostics, [])
        XCTAssertEqual(changes.map(\.change), [.cancelled])
        XCTAssertNil(changes.first?.info.address, "the zero address of a cancelled attempt names no peer")
        var text = TextRenderer()
        let line = text.render(
            Event(
                record: end, timestamp: Timestamp(microseconds: 0), direction: .received,
                connection: nil, isTop: true, body: .connection(changes[0])))
        XCTAssertTrue(line?.contains("Connection attempt cancelled by the host") == true, line ?? "")
        // Without a cancel, or after one the controller refused, the same status is a failure.
        var t = LESession()
        let failed = t.event(0x3e, [0x01, 0x02] + [UInt8](repeating: 0, count: 17))
        XCTAssertEqual(try run(t).findings, ["hci.connection.failed #\(failed)"])
        var refused = LESession()
        refused.command(0x200e, [])
        refused.event(0x0e, [0x01, 0x0e, 0x20, 0x0c])
        let after = refused.event(0x3e, [0x01, 0x02] + [UInt8](repeating: 0, count: 17))
        XCTAssertEqual(try run(refused).findings, ["hci.connection.failed #\(after)"])
    }

    func testAnLELinkWithoutMTUExchangeHasTheDefault() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        s.att(handle: 0x40, .sent, [0x0a, 0x03, 0x00])
        let info = try XCTUnwrap(run(s).connections.first)
        XCTAssertEqual(info.attMTU?.value, 23)
        XCTAssertEqual(info.attMTU?.isDefault, true)
        XCTAssertTrue(ConnectionSummary.steps(info).contains { $0.contains("MTU 23 (default, no exchange)") })
        var exchanged = LESession()
        exchanged.connect(handle: 0x40, address: address)
        exchanged.att(handle: 0x40, .sent, [0x02, 0xf7, 0x00])
        exchanged.att(handle: 0x40, .received, [0x03, 0x40, 0x00])
        let other = try XCTUnwrap(run(exchanged).connections.first)
        XCTAssertEqual(other.attMTU?.value, 64)
        XCTAssertEqual(other.attMTU?.isDefault, false)
    }

    /// A link that began before the capture may have exchanged its MTU before it too: unknown, not 23.
    func testALinkThatBeganBeforeTheCaptureHasAnUnknownMTU() throws {
        var s = LESession()
        s.att(handle: 0x40, .sent, [0x52, 0x03, 0x00] + [UInt8](repeating: 1, count: 240))
        let info = try XCTUnwrap(run(s).connections.first)
        XCTAssertTrue(info.inferred)
        XCTAssertEqual(info.transport, .le)
        XCTAssertNil(info.attMTU)
        let steps = ConnectionSummary.steps(info)
        XCTAssertTrue(steps.contains { $0.contains("MTU unknown (no exchange since the capture began)") }, "\(steps)")
    }

    func testASupervisionTimeoutSaysTheLastTrafficAndTheSilence() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        let last = s.att(handle: 0x40, .sent, [0x02, 0xf7, 0x00])
        s.time += 4_000_000
        let lost = disconnected(&s, 0x40, reason: 0x08)
        let r = try run(s)
        XCTAssertEqual(r.findings, ["hci.disconnect.timeout #\(lost)"])
        XCTAssertEqual(
            r.messages["hci.disconnect.timeout"],
            "0x0040 lost: Connection Timeout; the last traffic was #\(last), 4.001250 s before; the supervision timeout was 5000 ms"
        )
    }

    func testMICFailureEncryptionFailureAndPairingFailure() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        let request = s.l2cap(handle: 0x40, .sent, cid: 0x0006, [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07])
        let smp = s.l2cap(handle: 0x40, .received, cid: 0x0006, [0x05, 0x03])
        let encryption = s.event(0x08, [0x06, 0x40, 0x00, 0x00])
        s.att(handle: 0x40, .sent, [0x02, 0xf7, 0x00])
        let mic = disconnected(&s, 0x40, reason: 0x3d)
        let r = try run(s)
        XCTAssertEqual(
            r.findings,
            [
                "smp.pairing.failed #\(smp)", "hci.encryption.failed #\(encryption)",
                "hci.disconnect.mic_failure #\(mic)",
            ])
        XCTAssertEqual(r.messages["smp.pairing.failed"], "the accessory failed pairing: Authentication Requirements")
        XCTAssertEqual(
            r.messages["hci.encryption.failed"],
            "starting encryption on 0x0040 failed: PIN or Key Missing; the bond is gone on one side: forget the device on the phone and pair again"
        )
        XCTAssertEqual(r.connections.first?.lifecycle.pairingFailure?.reason.rawValue, 0x03)
        XCTAssertEqual(r.connections.first?.lifecycle.pairingStarted?.record, request)
        XCTAssertEqual(r.connections.first?.lifecycle.encryption?.status.rawValue, 0x06)
    }

    func testATTErrorsAreExplainedButTheEndOfADiscoveryIsNot() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        s.att(handle: 0x40, .sent, [0x10, 0x01, 0x00, 0xff, 0xff, 0x00, 0x28])
        s.att(handle: 0x40, .received, [0x01, 0x10, 0x01, 0x00, 0x0a])
        s.att(handle: 0x40, .sent, [0x0a, 0x03, 0x00])
        let refused = s.att(handle: 0x40, .received, [0x01, 0x0a, 0x03, 0x00, 0x0f])
        let r = try run(s)
        XCTAssertEqual(r.findings, ["att.error #\(refused)"])
        XCTAssertEqual(
            r.messages["att.error"],
            "the accessory refused the phone's Read Request on 0x0003: Insufficient Encryption; encrypt the link first: bond, or reconnect so the stored keys are used"
        )
        XCTAssertEqual(r.connections.first?.lifecycle.attErrors, 1, "the discovery's end is not counted")
    }

    func testAWriteLongerThanTheMTUAllows() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        s.aclFragment = 251
        let long = s.att(handle: 0x40, .sent, [0x52, 0x13, 0x00] + [UInt8](repeating: 1, count: 21))
        s.att(handle: 0x40, .sent, [0x52, 0x13, 0x00] + [UInt8](repeating: 1, count: 20))
        let r = try run(s)
        XCTAssertEqual(r.findings, ["att.value.too_long #\(long)"])
        XCTAssertEqual(
            r.messages["att.value.too_long"],
            "the phone's Write Command of 21 bytes to 0x0013; ATT_MTU is 23, so at most 20 fit")
    }

    /// A notification is held to the same bound (Core Vol 3 Part F §3.4.7.1): Wireshark says so too.
    func testANotificationLongerThanTheMTUAllows() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        s.aclFragment = 251
        let long = s.att(handle: 0x40, .received, [0x1b, 0x15, 0x00] + [UInt8](repeating: 1, count: 22))
        let r = try run(s)
        XCTAssertTrue(r.findings.contains("att.value.too_long #\(long)"), "\(r.findings)")
        XCTAssertEqual(
            r.messages["att.value.too_long"],
            "the accessory's Handle Value Notification of 22 bytes of 0x0015; ATT_MTU is 23, so at most 20 fit")
    }

    /// A Read Response's value follows its opcode alone: at most ATT_MTU − 1 (Core Vol 3 Part F
    /// §3.4.4.4); one of 22 bytes fits 23, one of 23 does not.
    func testAReadResponseLongerThanTheMTUAllows() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        s.aclFragment = 251
        s.att(handle: 0x40, .sent, [0x0a, 0x15, 0x00])
        s.att(handle: 0x40, .received, [0x0b] + [UInt8](repeating: 1, count: 22))
        s.att(handle: 0x40, .sent, [0x0a, 0x15, 0x00])
        let long = s.att(handle: 0x40, .received, [0x0b] + [UInt8](repeating: 1, count: 23))
        let r = try run(s)
        XCTAssertEqual(r.findings.filter { $0.hasPrefix("att.value") }, ["att.value.too_long #\(long)"])
        XCTAssertEqual(
            r.messages["att.value.too_long"],
            "the accessory's Read Response of 23 bytes of 0x0015; ATT_MTU is 23, so at most 22 fit")
    }

    /// Discovery of two notifying characteristics (0x0015 with CCCD 0x0016, 0x0018 with CCCD 0x0019).
    func discovered(_ s: inout LESession) {
        s.connect(handle: 0x40, address: address)
        s.att(handle: 0x40, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(
            handle: 0x40, .received,
            [0x09, 0x07, 0x14, 0x00, 0x10, 0x15, 0x00, 0xf4, 0xff, 0x17, 0x00, 0x10, 0x18, 0x00, 0xf5, 0xff])
        s.att(handle: 0x40, .sent, [0x04, 0x16, 0x00, 0x19, 0x00])
        s.att(handle: 0x40, .received, [0x05, 0x01, 0x16, 0x00, 0x02, 0x29, 0x19, 0x00, 0x02, 0x29])
    }

    func testNotificationsWithoutTheirCCCDEnabledAndTheSubscriptionsKept() throws {
        var s = LESession()
        discovered(&s)
        // The app enables 0x0018's CCCD only, after its first notification, and 0x0015's never.
        s.att(handle: 0x40, .received, [0x1b, 0x15, 0x00, 1])
        let first = s.lastRecord
        let early = s.att(handle: 0x40, .received, [0x1b, 0x18, 0x00, 1])
        let write = s.att(handle: 0x40, .sent, [0x12, 0x19, 0x00, 0x01, 0x00])
        s.att(handle: 0x40, .received, [0x13])
        s.att(handle: 0x40, .received, [0x1b, 0x18, 0x00, 2])
        s.att(handle: 0x40, .received, [0x1b, 0x15, 0x00, 2])
        let r = try run(s)
        XCTAssertEqual(
            r.findings, ["gatt.notification.unsubscribed #\(first)", "gatt.notification.unsubscribed #\(early)"])
        XCTAssertEqual(
            r.messages["gatt.notification.unsubscribed"],
            "the accessory's Handle Value Notification from 0x0018 (fff5), whose CCCD (0x0019) the phone did not enable in this connection before it, on a link that is not encrypted"
        )
        let subs = try XCTUnwrap(r.connections.first?.lifecycle.subscriptions)
        XCTAssertEqual(
            subs.map {
                "\(Hex.value($0.valueHandle, width: 4)) \($0.cccdHandle) \($0.uuid?.description ?? "?") \($0.kind) #\($0.step.record)"
            },
            ["0x0018 25 fff5 notify #\(write)"])
    }

    func testAnUndiscoveredHandleIsSaidOnce() throws {
        var s = LESession()
        discovered(&s)
        let first = s.att(handle: 0x40, .sent, [0x12, 0x99, 0x00, 0x01])
        s.att(handle: 0x40, .sent, [0x12, 0x99, 0x00, 0x02])
        s.att(handle: 0x40, .sent, [0x52, 0x15, 0x00, 0x02])
        let r = try run(s)
        XCTAssertEqual(r.findings, ["att.handle.undiscovered #\(first)"])
    }

    func testALinkThatNeverReachedATTAndAReconnectLoop() throws {
        var s = LESession()
        var closes: [Int] = []
        for _ in 0..<3 {
            s.connect(handle: 0x40, address: address)
            s.time += 1_000_000
            closes.append(disconnected(&s, 0x40, reason: 0x13))
        }
        let r = try run(s)
        XCTAssertEqual(r.findings, closes.map { "gatt.discovery.none #\($0)" } + ["hci.connection.loop #\(closes[2])"])
        XCTAssertEqual(
            r.messages["hci.connection.loop"],
            "3 connections to AA:BB:CC:11:22:33 ended within 60 s, each under 10 s (closed at #\(closes[0]), #\(closes[1]), #\(closes[2]))"
        )
    }

    func testAFlowControlStall() throws {
        var s = LESession()
        // LE Read Buffer Size: 251-byte packets, 2 buffers.
        s.command(0x2002, [])
        s.event(0x0e, [0x01, 0x02, 0x20, 0x00, 0xfb, 0x00, 0x02])
        s.connect(handle: 0x40, address: address)
        s.aclFragment = 251
        s.att(handle: 0x40, .sent, [0x52, 0x13, 0x00, 1])
        let full = s.att(handle: 0x40, .sent, [0x52, 0x13, 0x00, 2])
        s.time += 300_000
        let freed = s.event(0x13, [0x01, 0x40, 0x00, 0x02, 0x00])
        // Credits come back at once now: no stall.
        s.att(handle: 0x40, .sent, [0x52, 0x13, 0x00, 3])
        s.att(handle: 0x40, .sent, [0x52, 0x13, 0x00, 4])
        s.event(0x13, [0x01, 0x40, 0x00, 0x02, 0x00])
        let r = try run(s)
        XCTAssertEqual(r.findings, ["hci.flow.stall #\(freed)"])
        XCTAssertEqual(
            r.messages["hci.flow.stall"],
            "all 2 controller ACL buffers were in use from #\(full) until this Number Of Completed Packets: 0.301250 s with no credit to send"
        )
    }

    func testTheLifecycleFactsOfAHealthySession() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        s.event(0x3e, [0x03, 0x00, 0x40, 0x00, 0x06, 0x00, 0x00, 0x00, 0x2c, 0x01])
        s.event(0x3e, [0x0c, 0x00, 0x40, 0x00, 0x02, 0x02])
        s.event(0x3e, [0x07, 0x40, 0x00, 0xfb, 0x00, 0x48, 0x08, 0xfb, 0x00, 0x48, 0x08])
        s.event(0x08, [0x00, 0x40, 0x00, 0x01])
        s.att(handle: 0x40, .sent, [0x02, 0xf7, 0x00])
        s.att(handle: 0x40, .received, [0x03, 0xf7, 0x00])
        let r = try run(s)
        XCTAssertEqual(r.findings, [])
        let life = try XCTUnwrap(r.connections.first?.lifecycle)
        XCTAssertEqual(life.parameters, Lifecycle.Parameters(interval: 6, latency: 0, timeout: 300))
        XCTAssertEqual(life.parameterUpdates, 1)
        XCTAssertEqual(life.phy.map { [$0.tx, $0.rx] }, [2, 2])
        XCTAssertEqual(life.dataLength.map { [$0.tx, $0.rx] }, [251, 251])
        XCTAssertEqual(life.encrypted, true)
        XCTAssertEqual(life.attMTU, 247)
        XCTAssertEqual(life.firstATT?.record, 8, "after 3 records to connect and 4 events")
    }
}

extension LifecycleTests {
    func testAdvertisersAreSummarisedFromLegacyAndExtendedReports() throws {
        var s = LESession()
        // LE Advertising Report: 1 report, ADV_IND, public address, AD: flags, 16-bit UUIDs 180d and fff0,
        // complete name "Aurora"; RSSI -60.
        let ad: [UInt8] = [0x02, 0x01, 0x06, 0x05, 0x03, 0x0d, 0x18, 0xf0, 0xff, 0x07, 0x09] + Array("Aurora".utf8)
        let first = s.event(
            0x3e, [0x02, 0x01, 0x00, 0x00] + address + [UInt8(ad.count)] + ad + [UInt8(bitPattern: -60)])
        // LE Extended Advertising Report: the same device at RSSI -48, a scan response with the shortened name.
        let rsp: [UInt8] = [0x04, 0x08] + Array("Aur".utf8)
        let ext = s.event(
            0x3e,
            [0x0d, 0x01, 0x1b, 0x00, 0x00] + address + [
                0x01, 0x00, 0xff, 0x7f, UInt8(bitPattern: -48), 0x00, 0x00, 0x00,
                0, 0, 0, 0, 0, 0, UInt8(rsp.count),
            ] + rsp)
        // Another device, no data.
        s.event(0x3e, [0x02, 0x01, 0x00, 0x01, 1, 2, 3, 4, 5, 6, 0x00, UInt8(bitPattern: -90)])
        var reader = try CaptureFormat.open(MemorySource(s.bytes))
        let analyzer = try Pipeline.run(&reader) { _ in }
        let devices = analyzer.advertisers.sorted
        XCTAssertEqual(devices.map(\.address.description), ["AA:BB:CC:11:22:33", "06:05:04:03:02:01"])
        let aurora = try XCTUnwrap(devices.first)
        XCTAssertEqual(aurora.reports, 2)
        XCTAssertEqual([aurora.first.record, aurora.last.record], [first, ext])
        XCTAssertEqual(aurora.rssi, -60 ... -48)
        XCTAssertEqual(aurora.name, "Aur", "the latest name said")
        XCTAssertEqual(aurora.uuids.map(\.description), ["180d", "fff0"])
        let stats = StatsCollector(file: "x", info: reader.info)
        XCTAssertTrue(
            stats.text(connections: [], advertisers: analyzer.advertisers)
                .contains(
                    "  AA:BB:CC:11:22:33 \"Aur\": 2 reports #\(first)–#\(ext), RSSI -60…-48 dBm, services 180d fff0\n"))
    }
}

extension LifecycleTests {
    func testTheSummaryOfTheHealthySample() throws {
        let r = try run(SampleCaptures.session())
        XCTAssertEqual(r.findings, [])
        XCTAssertEqual(
            r.connections.flatMap(ConnectionSummary.text),
            [
                "  0x0040 AA:BB:CC:11:22:33 LE central: #3 → #58 (Connection Terminated By Local Host), 0.068750 s",
                "         interval 30 ms, latency 0, timeout 5000 ms",
                "         first ATT #4 +0.001250 s; MTU 64; discovery at #8 +0.006250 s",
                "         subscribed: 0x0015 fff4 notify (#25 +0.027500 s)",
            ])
    }
}

extension LifecycleTests {
    /// Past the history limit the oldest closed connections go; the newest stay, in the order they closed.
    func testTheConnectionHistoryKeepsTheNewestInOrder() throws {
        var s = LESession()
        var closes: [Int] = []
        for _ in 0..<5 {
            s.connect(handle: 0x40, address: address)
            s.att(handle: 0x40, .sent, [0x02, 0xf7, 0x00])
            closes.append(disconnected(&s, 0x40, reason: 0x13))
        }
        var limits = Limits()
        limits.connectionHistory = 2
        var reader = try CaptureFormat.open(MemorySource(s.bytes))
        let analyzer = try Pipeline.run(&reader, Configuration(limits: limits)) { _ in }
        XCTAssertEqual(analyzer.connections.all.map(\.closedRecord), [closes[3], closes[4]])
        XCTAssertEqual(analyzer.connections.historyDropped, 3)
    }
}
