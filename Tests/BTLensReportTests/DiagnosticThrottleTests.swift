import BTLensCore
import BTLensDissect
import BTLensTestSupport
import XCTest

@testable import BTLensReport

/// The timeline's throttle fed synthetic floods: what it shows, what it counts, where it says so.
final class DiagnosticThrottleTests: XCTestCase {
    static let t0: Int64 = 1_700_000_000_000_000
    static let short = DiagnosticKind("a5.payload.short", .warning, "")
    static let extra = DiagnosticKind("a5.payload.extra", .note, "")

    /// A diagnostic at `record`, `ms` milliseconds (or `us` microseconds) after the first event.
    func diagnostic(
        _ record: Int, ms: Int64 = 0, us: Int64 = 0, _ kind: DiagnosticKind = short,
        stream: (String, FieldValue)? = ("att_handle", .hex(UInt16(0x0013))), connection: UInt16? = 0x0040,
        top: Bool = true
    ) -> Event {
        Event(
            record: record, timestamp: Timestamp(microseconds: Self.t0 + ms * 1000 + us), direction: .sent,
            connection: connection, isTop: top,
            body: .diagnostic(Diagnostic(kind, "#\(record)", fields: stream.map { [$0] } ?? [])))
    }

    func note(_ record: Int, ms: Int64 = 0, us: Int64 = 0) -> Event {
        Event(
            record: record, timestamp: Timestamp(microseconds: Self.t0 + ms * 1000 + us), direction: nil,
            connection: nil, isTop: true, body: .note(category: "Note", text: "#\(record)"))
    }

    func run(_ events: [Event], _ throttle: DiagnosticThrottle = DiagnosticThrottle(perSecond: 20)) -> [Event] {
        var out: [Event] = []
        for e in events { throttle.pass(e) { out.append($0) } }
        throttle.finish { out.append($0) }
        return out
    }

    /// `#record id message` per event: the shape of what a timeline prints, without the renderer.
    func lines(_ events: [Event]) -> [String] {
        events.map { e in
            guard let d = e.diagnostic else { return "#\(e.record) note" }
            return "#\(e.record) \(d.id) \(d.message)"
        }
    }

    func testTheFirstNPassAndTheRestAreSaidInOneLineAtTheLastOne() {
        let out = run([note(1)] + (2...101).map { diagnostic($0, ms: Int64($0)) })
        XCTAssertEqual(
            lines(out),
            ["#1 note"] + (2...21).map { "#\($0) a5.payload.short #\($0)" } + [
                "#101 diagnostic.suppressed … and 80 more a5.payload.short on att_handle 0x0013 in the second from 0.000 s (last at #101)"
            ])
        guard let line = out.last, let d = line.diagnostic else { return XCTFail() }
        XCTAssertEqual(d.severity, .note)
        XCTAssertEqual(line.connection, 0x0040)
        XCTAssertEqual(line.direction, .sent)
        XCTAssertEqual(line.timestamp, Timestamp(microseconds: Self.t0 + 101_000))
        XCTAssertEqual(d.fields.map(\.0), ["suppressed_id", "count", "att_handle", "last_record"])
        XCTAssertEqual(d.field("suppressed_id"), .string("a5.payload.short"))
        XCTAssertEqual(d.field("count"), .int(80))
        XCTAssertEqual(d.field("att_handle"), .hex(UInt16(0x0013)))
        XCTAssertEqual(d.field("last_record"), .int(101))
    }

    /// A window is a whole second since the first event: 0.999999 s is in the first, 1.000000 s
    /// closes it, and the lines of the closed second come before the event that closed it.
    func testTheWindowIsAWholeSecondAndItsLinesComeBeforeTheEventThatClosesIt() {
        let first = [diagnostic(1, Self.extra, stream: nil)] + (2...22).map { diagnostic($0, us: 999_999) }
        let out = run(first + [note(23, us: 1_000_000), diagnostic(24, us: 1_000_001)])
        XCTAssertEqual(
            Array(lines(out).suffix(3)),
            [
                "#22 diagnostic.suppressed … and 1 more a5.payload.short on att_handle 0x0013 in the second from 0.000 s (last at #22)",
                "#23 note",
                // A new second: the key's count starts again.
                "#24 a5.payload.short #24",
            ])
        XCTAssertEqual(out.count, 1 + 20 + 1 + 1 + 1)
    }

    func testAClockThatGoesBackClosesTheWindowToo() {
        let late = (2...31).map { diagnostic($0, ms: 5_200) }
        let out = run([diagnostic(1, Self.extra, stream: nil)] + late + [diagnostic(32, ms: 3_100)])
        XCTAssertEqual(
            Array(lines(out).suffix(2)),
            [
                "#31 diagnostic.suppressed … and 10 more a5.payload.short on att_handle 0x0013 in the second from 5.000 s (last at #31)",
                "#32 a5.payload.short #32",
            ])
    }

    /// Seconds count from the traffic, as the timeline's: a header note days older is no origin.
    func testANoteOlderThanTheTrafficIsNoOrigin() {
        let old = note(1, ms: -5 * 86_400_000)
        let out = run([old] + (2...22).map { diagnostic($0, ms: 1_500) })
        XCTAssertEqual(
            lines(out).last,
            "#22 diagnostic.suppressed … and 1 more a5.payload.short on att_handle 0x0013 in the second from 0.000 s (last at #22)"
        )
    }

    /// Another id, handle, kind of stream, connection, or no stream at all: each key has its own share.
    func testKeysOfDifferentStreamsAreIndependent() {
        let keys: [(DiagnosticKind, (String, FieldValue)?, UInt16?)] = [
            (Self.short, ("att_handle", .hex(UInt16(0x0013))), 0x0040),
            (Self.short, ("att_handle", .hex(UInt16(0x0015))), 0x0040),
            (Self.short, ("ea_session", .int(0x0013)), 0x0040),
            (Self.short, ("dlci", .int(4)), 0x0040),
            (Self.short, ("att_handle", .hex(UInt16(0x0013))), 0x0041),
            (Self.extra, ("att_handle", .hex(UInt16(0x0013))), 0x0040),
            (Self.short, nil, 0x0040),
            (Self.short, nil, nil),
        ]
        var events = [note(1)]
        for i in 0..<25 {
            for (k, key) in keys.enumerated() {
                events.append(diagnostic(2 + i * keys.count + k, ms: 10, key.0, stream: key.1, connection: key.2))
            }
        }
        let out = run(events)
        let summaries = out.compactMap(\.diagnostic).filter { $0.id == "diagnostic.suppressed" }
        XCTAssertEqual(summaries.map { $0.field("count") }, Array(repeating: .int(5), count: keys.count))
        XCTAssertEqual(out.count, 1 + keys.count * 20 + keys.count)
        XCTAssertEqual(
            summaries.map(\.message).prefix(4),
            [
                "… and 5 more a5.payload.short on att_handle 0x0013 in the second from 0.000 s (last at #194)",
                "… and 5 more a5.payload.short on att_handle 0x0015 in the second from 0.000 s (last at #195)",
                "… and 5 more a5.payload.short on ea_session 19 in the second from 0.000 s (last at #196)",
                "… and 5 more a5.payload.short on dlci 4 in the second from 0.000 s (last at #197)",
            ])
        XCTAssertEqual(summaries.last?.fields.map(\.0), ["suppressed_id", "count", "last_record"])
    }

    /// Past the bound on keys a window counts nothing more: the diagnostics of further keys are all
    /// shown. The next second has the whole bound again.
    func testPastTheBoundOnKeysDiagnosticsAreShownNotLost() {
        var events = [note(1)]
        for _ in 0..<30 {
            for handle in [UInt16(1), 2, 3] {
                events.append(diagnostic(events.count + 1, ms: 1, stream: ("att_handle", .hex(handle))))
            }
        }
        for _ in 0..<30 {
            events.append(diagnostic(events.count + 1, ms: 1_500, stream: ("att_handle", .hex(UInt16(3)))))
        }
        let out = run(events, DiagnosticThrottle(perSecond: 20, keyLimit: 2))
        func shown(_ handle: UInt16, before: Int64) -> Int {
            out.filter {
                $0.diagnostic?.field("att_handle") == .hex(handle) && $0.diagnostic?.id == "a5.payload.short"
                    && $0.timestamp.microseconds < Self.t0 + before
            }.count
        }
        XCTAssertEqual(
            [shown(1, before: 1_000_000), shown(2, before: 1_000_000), shown(3, before: 1_000_000)], [20, 20, 30])
        XCTAssertEqual(shown(3, before: 2_000_000) - shown(3, before: 1_000_000), 20)
        let counts = out.compactMap(\.diagnostic).filter { $0.id == "diagnostic.suppressed" }.map {
            [$0.field("att_handle"), $0.field("count")]
        }
        XCTAssertEqual(
            counts, [[.hex(UInt16(1)), .int(10)], [.hex(UInt16(2)), .int(10)], [.hex(UInt16(3)), .int(10)]])
    }

    func testZeroShowsEveryEvent() {
        let events = [note(1)] + (2...200).map { diagnostic($0, ms: Int64($0)) }
        XCTAssertEqual(lines(run(events, DiagnosticThrottle(perSecond: 0))), lines(events))
    }

    /// Lower-layer diagnostics (shown with --verbose only) and other events are never held back.
    func testOnlyTopDiagnosticsAreCounted() {
        let events = [note(1)] + (2...60).map { diagnostic($0, ms: 1, top: false) } + (61...100).map { note($0, ms: 2) }
        XCTAssertEqual(lines(run(events)), lines(events))
    }

    /// Never lost: what is shown and what the lines count add up to every diagnostic, per id, over
    /// seconds, streams and a clock that goes back now and then.
    func testShownAndSuppressedAddUpToEveryDiagnostic() {
        var seed: UInt64 = 0x2545_f491_4f6c_dd1d
        func next(_ n: UInt64) -> Int64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int64((seed >> 33) % n)
        }
        var events = [note(1)]
        var ms: Int64 = 0
        var expected: [String: Int] = [:]
        for record in 2..<20_000 {
            ms += next(10) - (next(50) == 0 ? 1_500 : 0)
            let kind = next(3) == 0 ? Self.extra : Self.short
            if next(4) == 0 {
                events.append(note(record, ms: ms))
                continue
            }
            events.append(diagnostic(record, ms: ms, kind, stream: ("att_handle", .hex(UInt16(next(3))))))
            expected[kind.id, default: 0] += 1
        }
        var counted: [String: Int] = [:]
        for d in run(events).compactMap(\.diagnostic) {
            if d.id == "diagnostic.suppressed", case .string(let id)? = d.field("suppressed_id"),
                case .int(let n)? = d.field("count")
            {
                counted[id, default: 0] += Int(n)
            } else {
                counted[d.id, default: 0] += 1
            }
        }
        XCTAssertEqual(counted, expected)
        XCTAssertGreaterThan(expected.values.reduce(0, +), 10_000)
    }

    func testCountsAreGroupedByThousands() {
        XCTAssertEqual(
            [0, 7, 999, 1000, 1234, 999_999, 3_100_000].map(DiagnosticThrottle.grouped),
            ["0", "7", "999", "1,000", "1,234", "999,999", "3,100,000"])
    }
}
