import BTLensCore
import XCTest

@testable import BTLensAppLog
@testable import BTLensDissect

/// The log against the air: a line's bytes matched to the value that carried them within 2 s, and
/// the app.* diagnostics (docs/app-logs.md, "Matching" and "Disagreements").
final class AppLogAirMatcherTests: XCTestCase {
    /// An ATT PDU of connection 0x0040 carrying `value` (Core Vol 3 Part F §3.4).
    private func att(
        _ record: Int, at t: Int64, _ direction: Direction, _ opcode: ATTOpcode, handle: UInt16 = 0x002a,
        _ value: [UInt8]
    ) -> Event {
        Event(
            record: record, timestamp: Timestamp(microseconds: t), direction: direction, connection: 0x0040,
            isTop: true, body: .att(ATTInfo(opcode: opcode, handle: handle, uuid: nil, value: value[...])))
    }

    /// `events` added, and passed on into the second hold at slots 100, 101, …
    private func matcher(_ events: [Event]) -> AppLogAirMatcher {
        var air = AppLogAirMatcher()
        for (i, e) in events.enumerated() { air.passed(record: e.record, value: air.add(e), slot: 100 + i) }
        return air
    }

    func testAValueAnAppWritesOrIsGivenIsOne() {
        var air = AppLogAirMatcher()
        let bytes: [UInt8] = [0x01, 0x02, 0x03]
        XCTAssertEqual(air.add(att(1, at: 0, .sent, .writeRequest, bytes)), 0)
        XCTAssertEqual(air.add(att(2, at: 0, .received, .handleValueNotification, bytes)), 1)
        // A Prepare Write Response echoes the app's own bytes; a Read Request carries none.
        XCTAssertEqual(air.add(att(3, at: 0, .received, .prepareWriteResponse, bytes)), -1)
        XCTAssertEqual(air.add(att(4, at: 0, .sent, .readRequest, [])), -1)
        XCTAssertEqual(air.valueTimes, [bytes: [0, 0]])
    }

    /// Two pairs of digits alone (`03 20`) match only the first value no line showed, within 100 ms,
    /// after the record the log last matched that way; and never say a value was not on the air.
    func testAWeakRunMatchesOnlyNearAndInOrder() {
        let notify = { (r: Int, t: Int64) in self.att(r, at: t, .received, .handleValueNotification, [0x03, 0x20]) }
        var air = matcher([notify(1, 1_000_000), notify(2, 1_000_600), notify(3, 1_500_000)])
        var last = AppLogAirMatcher.LastMatched()
        func match(_ at: Int64) -> Int? {
            let m = air.match(readLine(1, "receive <= 03 20", at: at), at: at, after: last)
            last.update(m)
            XCTAssertNil(m.unsent)
            return m.record
        }
        XCTAssertEqual(match(1_003_000), 1)
        XCTAssertEqual(match(1_003_000), 2, "the next value no line showed, in order, not the nearest")
        XCTAssertNil(match(1_300_000), "#3 is 200 ms away")
        XCTAssertEqual(match(1_450_000), 3)
        XCTAssertNil(match(1_450_000), "each value once")
        // Behind the record the log last matched: out of order, not matched.
        var late = matcher([notify(1, 1_000_000), notify(2, 1_000_600)])
        var after = AppLogAirMatcher.LastMatched()
        after.received = 2
        XCTAssertNil(late.match(readLine(1, "receive <= 03 20", at: 1_000_000), at: 1_000_000, after: after).record)
        after.received = 1
        XCTAssertEqual(
            late.match(readLine(1, "receive <= 03 20", at: 1_000_000), at: 1_000_000, after: after).record, 2)
        XCTAssertEqual(late.match(readLine(1, "receive <= 03 20", at: 1_000_000), at: 1_000_000).record, 1)
        XCTAssertNil(late.match(readLine(1, "TX 03 20", at: 1_000_000), at: 1_000_000).record, "the other direction")
        // A log of whole seconds: its line may be up to a second off, so its weak run looks that far.
        var coarse = matcher([notify(1, 1_900_000)])
        let whole = AppLogReadLine(
            line: AppLogLine(
                number: 1, time: LogTime(year: 2023, month: 11, day: 14, hour: 22, minute: 13, second: 20),
                message: "receive <= 03 20", text: "receive <= 03 20"),
            rawTime: 1_000_000, runs: HexBytes.find(in: "receive <= 03 20"))
        XCTAssertEqual(whole.resolution, 1_000_000)
        XCTAssertEqual(coarse.match(whole, at: 1_000_000).record, 1)
        // Sent and never carried: said for bytes, not for a weak run.
        var none = matcher([])
        XCTAssertNil(none.match(readLine(1, "TX 10 20", at: 0), at: 0).unsent)
        XCTAssertNotNil(none.match(readLine(1, "TX 10 2a", at: 0), at: 0).unsent)
    }

    func testALineNamesTheValueItShows() {
        var air = matcher([
            att(1, at: 1_000_000, .received, .handleValueNotification, [0x01, 0x02, 0x03]),
            att(2, at: 1_500_000, .sent, .writeCommand, [0x01, 0x02, 0x03]),
        ])
        let m = air.match(readLine(7, "TX write: 01 02 03", at: 1_400_000), at: 1_400_000)
        XCTAssertEqual(m.record, 2)
        XCTAssertEqual(m.sent, 2)
        XCTAssertNil(m.unsent)
        // Out of the window, no match.
        XCTAssertNil(air.match(readLine(8, "RX 01 02 03", at: 3_100_000), at: 3_100_000).record)
    }

    func testAWholeValueBeforeOneThatBeginsWithTheBytes() {
        let head: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]
        var air = matcher([
            att(1, at: 1_000_000, .received, .handleValueNotification, head + [0x09]),
            att(2, at: 2_500_000, .received, .handleValueNotification, head),
        ])
        XCTAssertEqual(air.match(readLine(1, "RX 01 02 03 04 05 06 07 08", at: 1_000_000), at: 1_000_000).record, 2)
        // A head of 8 bytes names the value it begins.
        XCTAssertEqual(air.match(readLine(2, "RX 01 02 03 04 05 06 07 08", at: 400_000), at: 400_000).record, 1)
    }

    func testBytesLoggedSentThatNoPacketCarried() {
        var air = matcher([att(4, at: 1_000_000, .sent, .writeRequest, [0x01, 0x02, 0x03])])
        let line = readLine(12, "TX write: de ad be ef", at: 3_500_000)
        let m = air.match(line, at: 3_500_000)
        var said: [Event] = []
        var lastSent: (record: Int, line: Int)?
        AppLogAirMatcher.disagreements(m, of: line.line, in: "a.log", at: 3_500_000, lastSent: &lastSent, record: 4) {
            said.append($0)
        }
        XCTAssertEqual(said.count, 1)
        guard case .diagnostic(let d) = said.first?.body else { return XCTFail("no diagnostic") }
        XCTAssertEqual(d.kind, AppLogAirDiagnostics.txNotOnAir)
        XCTAssertEqual(d.message, "a.log:12 logs 4 bytes sent (deadbeef) that no packet carried within 2 s")
        XCTAssertEqual([said[0].record, Int(said[0].timestamp.microseconds)], [4, 3_500_000])
    }

    func testALogThatDisagreesWithTheAirOnTheOrder() {
        var air = matcher([
            att(1, at: 1_000_000, .sent, .writeRequest, [0x01, 0x02, 0x03]),
            att(2, at: 1_010_000, .sent, .writeRequest, [0x04, 0x05, 0x06]),
        ])
        var lastSent: (record: Int, line: Int)?
        var said: [Event] = []
        for (n, bytes) in [(10, "04 05 06"), (11, "01 02 03")] {
            let line = readLine(n, "TX write: \(bytes)", at: 1_000_000)
            AppLogAirMatcher.disagreements(
                air.match(line, at: 1_000_000), of: line.line, in: "a.log", at: 1_000_000, lastSent: &lastSent,
                record: 2
            ) { said.append($0) }
        }
        XCTAssertEqual(said.count, 1)
        guard case .diagnostic(let d) = said.first?.body else { return XCTFail("no diagnostic") }
        XCTAssertEqual(d.kind, AppLogAirDiagnostics.order)
        XCTAssertEqual(d.message, "a.log:10 was logged before line 11, but its bytes went out after them: #2 after #1")
        XCTAssertEqual(said[0].record, 1)
        XCTAssertEqual([lastSent?.record, lastSent?.line], [2, 10])
    }

    func testAReceivedValueNoLineShowedOnAStreamTheAppLogs() {
        var air = matcher([
            att(1, at: 1_000_000, .received, .handleValueNotification, [0x01, 0x02, 0x03]),
            att(2, at: 1_100_000, .received, .handleValueNotification, [0x04, 0x05, 0x06]),
            att(3, at: 1_200_000, .received, .handleValueNotification, [0x07, 0x08, 0x09]),
            // Another handle, which no line showed: not one the app logs.
            att(4, at: 1_300_000, .received, .handleValueNotification, handle: 0x002c, [0x0a, 0x0b, 0x0c]),
        ])
        XCTAssertEqual(air.match(readLine(1, "RX 01 02 03", at: 1_000_000), at: 1_000_000).record, 1)
        var said: [(Int, Event)] = []
        air.prune(before: .max, detected: 4) { said.append(($0, $1)) }
        XCTAssertEqual(said.map(\.0), [101])
        guard case .diagnostic(let d) = said.first?.1.body else { return XCTFail("no diagnostic") }
        XCTAssertEqual(d.kind, AppLogAirDiagnostics.rxNotLogged)
        XCTAssertEqual(
            d.message,
            "#2: 3 bytes received on 0x0040 ATT 0x002a, which the app logs, that no log line shows within 2 s")
        // The stream's later ones are counted, and said once at the end.
        XCTAssertEqual(
            air.laterUnlogged().map(\.message),
            ["1 more value received on 0x0040 ATT 0x002a after #2 that no log line shows within 2 s: #3"])
    }

    func testAnA5FrameOnAnRFCOMMChannelIsItsWireBytes() {
        // docs/protocols/a5-frame.md: magic, version, command, sequence, flags, length, payload, checksum.
        let wire = Frame.encode(command: 0x05, sequence: 1, payload: [0x01])
        let frame = Frame(
            version: 1, command: 0x05, sequence: 1, flags: 0, payload: [0x01], checksum: UInt32(wire[wire.count - 1]),
            expectedChecksum: UInt32(wire[wire.count - 1]))
        let info = FrameInfo(frame: frame, transport: .rfcomm, attHandle: nil, uuid: nil, rfcommChannel: 3)
        var air = AppLogAirMatcher()
        let e = Event(
            record: 9, timestamp: Timestamp(microseconds: 50), direction: .received, connection: 0x0040, isTop: true,
            body: .frame(info))
        XCTAssertEqual(air.add(e), 0)
        XCTAssertEqual(air.valueTimes, [wire: [50]])
        XCTAssertEqual(air.values[0].stream.description, "0x0040 RFCOMM channel 3")
    }
}
