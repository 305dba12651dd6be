import BTLensCapture
import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// Connections lost as a sniffer sees them: no PDU for longer than the supervision timeout (Core
/// v5.4 Vol 6 Part B §4.5.2), from CONNECT_IND or LL_CONNECTION_UPDATE_IND at its instant (§5.1.1).
final class LinkLayerSupervisionTests: XCTestCase {
    static let aa: UInt32 = 0x5065_3a9b

    /// Top events as "#record time-in-µs kind", diagnostics by id, connections by change and reason.
    static func lines(_ capture: AirCapture, _ link: PcapFileWriter.LinkType = .nordic) throws -> [String] {
        try analyze(capture.bytes(link)).filter(\.isTop).compactMap { e in
            let at = "#\(e.record) \(e.timestamp.microseconds - AirCapture.start)"
            switch e.body {
            case .diagnostic(let d): return "\(at) ! \(d.id)"
            case .connection(let c):
                return "\(at) \(c.change.rawValue)\(c.code.map { " \($0.name)" } ?? "") h\(e.connection ?? 0)"
            case .profile(let m): return "\(at) \(m.name)"
            default: return nil
            }
        }
    }

    /// LL_CONNECTION_UPDATE_IND: WinSize 1, WinOffset 0, Interval 24, Latency 0, Timeout, Instant (§2.4.2.1).
    static func update(timeout: UInt16, instant: UInt16) -> [UInt8] {
        [
            0x00, 1, 0, 0, 24, 0, 0, 0, UInt8(timeout & 0xff), UInt8(timeout >> 8), UInt8(instant & 0xff),
            UInt8(instant >> 8),
        ]
    }

    /// Timeout 100 ms; the last PDU at 10 ms; an advertisement at 500 ms shows the connection lost at
    /// 110 ms (the record that showed it, the time it was lost), freed: its next PDU assumes a new one.
    func testSilenceLongerThanTheTimeoutLosesTheConnection() throws {
        var a = AirCapture()
        a.connect(Self.aa, timeout: 10, at: 0)
        a.data(Self.aa, .central, llid: 1, sn: 0, nesn: 0, at: 10_000)
        a.data(Self.aa, .peripheral, llid: 1, sn: 0, nesn: 1, at: 10_150)
        a.advertising(0, SnifferCapture.peripheral.wire, at: 500_000)
        a.data(Self.aa, .central, llid: 1, sn: 1, nesn: 1, at: 510_000)
        XCTAssertEqual(
            try Self.lines(a),
            [
                "#1 0 CONNECT_IND", "#1 0 opened h1", "#4 500000 ! ll.connection.lost",
                "#4 110150 ! hci.disconnect.timeout", "#4 110150 ! gatt.discovery.none",
                "#4 110150 closed Connection Timeout h1", "#4 500000 ADV_IND",
                "#5 510000 inferred h2", "#5 510000 ! ll.connection.inferred",
            ])
        let lost = try analyze(a.bytes()).compactMap(\.diagnostic).first { $0.id == "ll.connection.lost" }
        XCTAssertEqual(
            lost?.message,
            "expected a PDU within the supervision timeout (100 ms) after #3, found none before #4: the connection is taken as lost 100 ms after #3 (inferred from what the sniffer heard)"
        )
    }

    /// Silence as long as the timeout, and the end of the capture, lose nothing.
    func testNoLossWithinTheTimeoutOrAtTheEnd() throws {
        var a = AirCapture()
        a.connect(Self.aa, timeout: 10, at: 0)
        a.data(Self.aa, .central, llid: 1, sn: 0, nesn: 0, at: 10_000)
        a.data(Self.aa, .peripheral, llid: 1, sn: 0, nesn: 1, at: 110_000)
        XCTAssertEqual(try Self.lines(a).filter { $0.contains("!") || $0.contains("closed") }, [])
    }

    /// With the event counter, the update's timeout holds from its instant (event 10): before it the
    /// old 100 ms, after it 1 s. A silence of 500 ms after event 10 loses nothing.
    func testAnUpdateTakesEffectAtItsInstant() throws {
        var a = AirCapture()
        a.connect(Self.aa, timeout: 10, at: 0)
        a.data(Self.aa, .central, llid: 3, sn: 0, nesn: 0, Self.update(timeout: 100, instant: 10), event: 5, at: 1000)
        a.data(Self.aa, .peripheral, llid: 1, sn: 0, nesn: 1, event: 5, at: 1150)
        a.data(Self.aa, .central, llid: 1, sn: 1, nesn: 1, event: 10, at: 91_000)
        a.data(Self.aa, .peripheral, llid: 1, sn: 1, nesn: 0, event: 10, at: 91_150)
        a.data(Self.aa, .central, llid: 1, sn: 0, nesn: 0, event: 27, at: 591_000)
        let said = try Self.lines(a).filter { $0.contains("!") || $0.contains("closed") }
        XCTAssertEqual(said, ["#4 91000 ! ll.packets.missed", "#6 591000 ! ll.packets.missed"])
        // The same update and a silence of 150 ms before its instant: the old timeout still holds.
        var b = AirCapture()
        b.connect(Self.aa, timeout: 10, at: 0)
        b.data(Self.aa, .central, llid: 3, sn: 0, nesn: 0, Self.update(timeout: 100, instant: 10), event: 5, at: 1000)
        b.data(Self.aa, .peripheral, llid: 1, sn: 0, nesn: 1, event: 5, at: 1150)
        b.data(Self.aa, .central, llid: 1, sn: 1, nesn: 1, event: 9, at: 151_000)
        XCTAssertTrue(try Self.lines(b).contains("#4 101150 closed Connection Timeout h1"))
    }

    /// Without the counter (256), the longer of the two timeouts holds from the update on.
    func testWithoutACounterTheLongerTimeoutHolds() throws {
        var a = AirCapture()
        a.connect(Self.aa, timeout: 100, at: 0)
        a.data(Self.aa, .central, llid: 3, sn: 0, nesn: 0, Self.update(timeout: 10, instant: 10), at: 1000)
        a.data(Self.aa, .peripheral, llid: 1, sn: 0, nesn: 1, at: 1150)
        a.data(Self.aa, .central, llid: 1, sn: 1, nesn: 1, at: 501_150)
        XCTAssertEqual(try Self.lines(a, .leWithPseudoHeader).filter { $0.contains("closed") }, [])
    }

    /// Timestamps that go back do not move the last PDU's time back; one at the end of time is a long
    /// silence, and overflows nothing.
    func testTimestampsOutOfOrderOrAbsurd() throws {
        var a = AirCapture()
        a.connect(Self.aa, timeout: 10, at: 0)
        a.data(Self.aa, .central, llid: 1, sn: 0, nesn: 0, at: 100_000)
        a.data(Self.aa, .peripheral, llid: 1, sn: 0, nesn: 1, at: -5_000_000)
        a.data(Self.aa, .central, llid: 1, sn: 1, nesn: 1, at: 150_000)
        XCTAssertEqual(try Self.lines(a).filter { $0.contains("closed") }, [])
        var records = a.records
        records[2].timestamp = Timestamp(microseconds: .max - 10)
        records[3].timestamp = Timestamp(microseconds: .max)
        var events: [Event] = []
        let analyzer = Analyzer { events.append($0) }
        for r in records { analyzer.process(r) }
        let closed = events.filter { if case .connection(let c) = $0.body { c.change == .closed } else { false } }
        XCTAssertEqual(closed.map(\.timestamp.microseconds), [AirCapture.start + 200_000])
        XCTAssertEqual(closed.map(\.record), [3])
    }
}

extension LinkLayerSupervisionTests {
    /// A chain, a connection with missed PDUs, an update and a loss, in each link type with 1–4 random
    /// bytes changed 1,000 times (AuxPtrs, ADIs, counters, SN/NESN, timestamps): never a trap, and
    /// what is awaited stays within its bounds.
    func testRandomlyDamagedStateNeverTraps() throws {
        var a = AirCapture()
        let aux: [UInt8] = [12, 0x19] + SnifferCapture.peripheral.wire + [0x01, 0x10, 20, 100, 0]
        a.advertising(7, aux + [2, 0x01, 0x06], channel: 5, at: 0)
        a.advertising(7, [3, 0x08, 0x01, 0x10, 2, 0x01, 0x06], channel: 20, at: 3000)
        a.connect(Self.aa, timeout: 10, at: 10_000)
        a.data(Self.aa, .central, llid: 3, sn: 0, nesn: 0, Self.update(timeout: 50, instant: 3), event: 0, at: 11_000)
        a.data(Self.aa, .central, llid: 1, sn: 1, nesn: 1, event: 2, at: 71_000)
        a.data(Self.aa, .peripheral, llid: 1, sn: 0, nesn: 0, event: 2, at: 71_150)
        a.data(Self.aa, .central, llid: 1, sn: 1, nesn: 1, event: 9, at: 700_000)
        var random = SplitMix(seed: 272)
        for link in [PcapFileWriter.LinkType.leLinkLayer, .leWithPseudoHeader, .nordic] {
            assertDamagedCopiesNeverTrap(a.bytes(link), runs: 1000, &random, "\(link)")
        }
    }
}
