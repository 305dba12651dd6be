import BTLensCore
import BTLensDissect
import Foundation
import XCTest

@testable import BTLensServe

/// The hub between the capture's thread and the pages: what each page reads, what it misses, and
/// who waits for whom.
final class LiveHubTests: XCTestCase {
    static func note(_ n: Int) -> Event {
        Event(
            record: n, timestamp: Timestamp(microseconds: Int64(n) * 1000), direction: nil, connection: nil,
            isTop: true, body: .note(category: "test", text: "note \(n)"))
    }

    /// What one of these events costs the hold.
    static let entrySize = LiveHub.Entry(event: note(1), line: Array(#"{"record":1}"#.utf8)).size

    static func publish(_ hub: LiveHub, _ records: ClosedRange<Int>) {
        for n in records { hub.publish(note(n), line: Array(#"{"record":\#(n)}"#.utf8), stopping: { false }) }
    }

    /// The lines a page reads until it has had nothing for 100 ms (or the hub ended and said so).
    static func drain(_ hub: LiveHub, _ id: Int) async -> [String] {
        var lines: [String] = []
        var quiet = 0
        while quiet < 20 {
            guard case .lines(let bytes) = hub.owed(id) else {
                quiet += 1
                try? await Task.sleep(for: .milliseconds(5))
                continue
            }
            quiet = 0
            lines += String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
            if lines.last == #"{"type":"btlens.end"}"# { return lines }
        }
        return lines
    }

    static func records(_ lines: [String]) -> [Int] {
        lines.compactMap { line in
            guard line.hasPrefix(#"{"record":"#) else { return nil }
            return Int(line.dropFirst(10).dropLast())
        }
    }

    func testAPageThatJoinsLateGetsWhatIsHeldThenTheEnd() async {
        let hub = LiveHub(mode: .follow, source: "cap")
        Self.publish(hub, 1...5)
        hub.finish(stopped: false)
        let lines = await Self.drain(hub, hub.join(filter: ""))
        XCTAssertEqual(
            lines.first, #"{"type":"btlens.hello","mode":"follow","source":"cap","filter":"","report":true}"#)
        XCTAssertEqual(lines[1], #"{"type":"btlens.reset","filter":""}"#)
        XCTAssertEqual(Self.records(lines), [1, 2, 3, 4, 5])
        XCTAssertTrue(lines.contains { $0.contains(#""state":"ended","records":0,"events":5"#) }, "\(lines)")
        XCTAssertEqual(lines.last, #"{"type":"btlens.end"}"#)
    }

    /// In follow, the capture never waits: the oldest events go, and a page that had not read them
    /// is told how many it missed.
    func testFollowEvictsAndCountsWhatASlowPageMissed() async {
        var limits = LiveHub.Limits()
        limits.eventBytes = 10 * Self.entrySize  // ten events
        let hub = LiveHub(mode: .follow, source: "cap", limits: limits)
        let page = hub.join(filter: "")
        Self.publish(hub, 1...100)
        hub.finish(stopped: true)
        let lines = await Self.drain(hub, page)
        let got = Self.records(lines)
        XCTAssertLessThanOrEqual(got.count, 11)
        XCTAssertEqual(got.last, 100)
        XCTAssertEqual(got, Array((101 - got.count)...100))
        let dropped = 100 - got.count
        XCTAssertTrue(
            lines.contains { $0.contains(#""dropped":\#(dropped),"evicted_before":\#(101 - got.count)"#) }, "\(lines)")
    }

    /// In view, the file waits for the pages: none is lost, however small the hold.
    func testViewWaitsForThePageInsteadOfDropping() async {
        var limits = LiveHub.Limits()
        limits.eventBytes = 4 * Self.entrySize
        limits.messageBytes = 20
        let hub = LiveHub(mode: .view, source: "cap", limits: limits)
        let producer = Thread {
            Self.publish(hub, 1...200)
            hub.finish(stopped: false)
        }
        producer.start()
        try? await Task.sleep(for: .milliseconds(100))
        XCTAssertEqual(hub.held.withLock { $0.events }, 4, "no page yet: the file waits once the hold is full")
        let lines = await Self.drain(hub, hub.join(filter: ""))
        XCTAssertEqual(Self.records(lines), Array(1...200))
        XCTAssertFalse(lines.contains { $0.contains(#""dropped":1"#) })
    }

    func testAFilterIsCompiledAndItsSelectionReplayed() async {
        let hub = LiveHub(mode: .follow, source: "cap")
        for n in 1...6 {
            hub.publish(Self.note(n), line: Array(#"{"record":\#(n)}"#.utf8), stopping: { false })
        }
        hub.finish(stopped: false)
        let page = hub.join(filter: "record in {2 5}")
        var lines = await Self.drain(hub, page)
        XCTAssertEqual(lines[1], #"{"type":"btlens.reset","filter":"record in {2 5}"}"#)
        XCTAssertEqual(Self.records(lines), [2, 5])
        // Refused where it is wrong, in code points (an e and its accent: one character, two code
        // points, as a page's script counts), and the selection stays.
        hub.setFilter("text == \"e\u{301}\" &&", for: page)
        lines = await Self.drain(hub, page)
        XCTAssertEqual(
            lines,
            [
                "{\"type\":\"btlens.filter.error\",\"expression\":\"text == \\\"e\u{301}\\\" &&\",\"message\":\"the filter ends where a test was expected\",\"column\":15,\"length\":1}"
            ])
        hub.setFilter("", for: page)
        lines = await Self.drain(hub, page)
        XCTAssertEqual(Self.records(lines), [1, 2, 3, 4, 5, 6])
    }

    /// A page that reconnects with a filter that no longer compiles: no filter applies, and the
    /// hello says so before the error.
    func testARefusedFilterOnJoiningLeavesNone() async {
        let hub = LiveHub(mode: .follow, source: "cap")
        Self.publish(hub, 1...2)
        hub.finish(stopped: false)
        let lines = await Self.drain(hub, hub.join(filter: "record =="))
        XCTAssertEqual(
            Array(lines.prefix(3)),
            [
                #"{"type":"btlens.hello","mode":"follow","source":"cap","filter":"","report":true}"#,
                #"{"type":"btlens.reset","filter":""}"#,
                #"{"type":"btlens.filter.error","expression":"record ==","message":"the filter ends where a value was expected","column":9,"length":1}"#,
            ])
        XCTAssertEqual(Self.records(lines), [1, 2])
    }

    func testAClosedPageEndsItsReading() async {
        let hub = LiveHub(mode: .follow, source: "cap")
        let page = hub.join(filter: "")
        _ = await hub.next(page)
        let reading = Task { await hub.next(page) }
        try? await Task.sleep(for: .milliseconds(50))
        hub.close(page)
        let last = await reading.value
        XCTAssertNil(last)
    }
}
