import BTLensCore
import BTLensDissect
import BTLensReport
import XCTest

/// Where seconds count from: the traffic's first event, with the notes before it held and shown first.
final class TrafficOriginTests: XCTestCase {
    static let traffic = DiagnosticKind("hci.malformed", .warning, "")

    func event(_ record: Int, seconds: Int64, note: Bool) -> Event {
        Event(
            record: record, timestamp: Timestamp(microseconds: seconds * 1_000_000), direction: note ? nil : .sent,
            connection: nil, isTop: true,
            body: note ? .note(category: "Note", text: "#\(record)") : .diagnostic(Diagnostic(Self.traffic, ""))
        )
    }

    func run(_ events: [Event]) -> (origin: [Int64], out: [Int]) {
        let o = TrafficOrigin()
        var origins: [Int64] = []
        var out: [Int] = []
        let begin = { (t: Timestamp) in origins.append(t.microseconds / 1_000_000) }
        for e in events { o.pass(e, begin: begin) { out.append($0.record) } }
        o.finish(begin: begin) { out.append($0.record) }
        return (origins, out)
    }

    func testNotesDaysOlderThanTheTrafficWaitForIt() {
        let r = run([
            event(1, seconds: 100, note: true), event(2, seconds: 100, note: true),
            event(3, seconds: 500_000, note: false), event(4, seconds: 500_001, note: true),
        ])
        XCTAssertEqual(r.origin, [500_000])
        XCTAssertEqual(r.out, [1, 2, 3, 4])
    }

    func testACaptureOfNotesAloneCountsFromItsFirst() {
        let r = run([event(1, seconds: 7, note: true), event(2, seconds: 9, note: true)])
        XCTAssertEqual(r.origin, [7])
        XCTAssertEqual(r.out, [1, 2])
    }

    func testPastTheLimitTheFirstNoteIsTheOrigin() {
        let notes = (1...TrafficOrigin.limit + 1).map { event($0, seconds: Int64($0), note: true) }
        let r = run(notes + [event(TrafficOrigin.limit + 2, seconds: 1_000, note: false)])
        XCTAssertEqual(r.origin, [1])
        XCTAssertEqual(r.out, Array(1...TrafficOrigin.limit + 2))
    }
}
