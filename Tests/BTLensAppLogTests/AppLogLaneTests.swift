import BTLensDissect
import XCTest

@testable import BTLensAppLog

/// One log's lane: its lines in time order on the capture's clock, and the lines that write no
/// time held until the value their bytes show has come (docs/app-logs.md, "On the timeline").
final class AppLogLaneTests: XCTestCase {
    /// Gives `lines` one at a time, as a log's source does.
    final class Lines {
        var lines: [AppLogReadLine]
        init(_ lines: [AppLogReadLine]) { self.lines = lines }
        func read() -> AppLogReadLine? { lines.isEmpty ? nil : lines.removeFirst() }
    }

    static let running = AppLogLane.Capture(firstHeld: 5_000, drained: 1_000, newest: 9_000, ending: false)

    /// The lines the lane places, in order: (line number, time).
    private func placed(
        _ lane: inout AppLogLane, _ lines: Lines, _ capture: AppLogLane.Capture = running,
        shown: (AppLogReadLine, Int64) -> Int64? = { _, _ in nil }
    ) throws -> [[Int64]] {
        var out: [[Int64]] = []
        while let p = try lane.peek(capture, read: lines.read, shown: shown) {
            out.append([Int64(p.line.line.number), p.time])
            lane.advance()
        }
        return out
    }

    private func aligned(offset: Int64) -> AppLogLane {
        var lane = AppLogLane()
        lane.alignment = AppLogAlignment(source: "a.log", offsetMicroseconds: offset, matched: 1, method: .content)
        return lane
    }

    func testLinesGoingBackALittleComeOutInTimeOrder() throws {
        var lane = aligned(offset: 100)
        let lines = Lines([
            readLine(1, "a", at: 3_000), readLine(2, "b", at: 1_000), readLine(3, "c", at: 3_000),
            readLine(4, "d", at: 2_000),
        ])
        XCTAssertEqual(try placed(&lane, lines), [[2, 1_100], [4, 2_100], [1, 3_100], [3, 3_100]])
        XCTAssertEqual(lane.span, 1_100...3_100)
    }

    func testALineMoreThanASecondBackComesWhereItIs() throws {
        var lane = aligned(offset: 0)
        let lines = Lines([
            readLine(1, "a", at: 2_000_000), readLine(2, "b", at: 3_100_000), readLine(3, "c", at: 1_000_000),
        ])
        // Line 2 is 1.1 s past line 1: the reading ahead stops there, before line 3.
        XCTAssertEqual(try placed(&lane, lines), [[1, 2_000_000], [3, 1_000_000], [2, 3_100_000]])
    }

    /// The lines read ahead are bounded in bytes too: past `byteLimit`, a line further back comes
    /// where it is (each line here weighs 258 bytes).
    func testTheLinesReadAheadIntoTimeOrderAreBoundedInBytes() throws {
        for (limit, order) in [(516, [[2, 1_000], [1, 3_000]]), (258, [[1, 3_000], [2, 1_000]])] {
            var lane = AppLogLane(byteLimit: limit)
            lane.alignment = AppLogAlignment(source: "a.log", offsetMicroseconds: 0, matched: 1, method: .content)
            let lines = Lines([readLine(1, "a", at: 3_000), readLine(2, "b", at: 1_000)])
            XCTAssertEqual(lines.lines.map(\.heldBytes), [258, 258])
            XCTAssertEqual(try placed(&lane, lines), order.map { $0.map(Int64.init) }, "\(limit)")
        }
    }

    func testAnUntimedLineGoesWhereItsBytesWereCarried() throws {
        var lane = aligned(offset: 0)
        let lines = Lines([readLine(1, "RX notify: 01 02 03", at: nil), readLine(2, "tick", at: nil)])
        let shown: (AppLogReadLine, Int64) -> Int64? = { line, after in
            XCTAssertEqual(after, 5_000)
            return line.runs.isEmpty ? nil : 7_001
        }
        // The line with no bytes goes right after the one before it.
        XCTAssertEqual(try placed(&lane, lines, shown: shown), [[1, 7_001], [2, 7_001]])
    }

    func testAnUntimedLineWaitsForItsValue() throws {
        var lane = aligned(offset: 0)
        let lines = Lines([readLine(1, "TX write: 01 02 03", at: nil), readLine(2, "TX write: 04 05 06", at: nil)])
        XCTAssertEqual(try placed(&lane, lines), [])
        XCTAssertTrue(lane.isWaiting)
        // A line after it found its own value: this one's never came, and it goes after the line before.
        let later: (AppLogReadLine, Int64) -> Int64? = { line, _ in line.line.number == 2 ? 8_000 : nil }
        XCTAssertEqual(try placed(&lane, lines, shown: later), [[1, 5_000], [2, 8_000]])
        XCTAssertFalse(lane.isWaiting)
    }

    func testAtTheEndAnUntimedLineWaitsNoMore() throws {
        var lane = aligned(offset: 0)
        let lines = Lines([readLine(1, "TX write: 01 02 03", at: nil)])
        let end = AppLogLane.Capture(firstHeld: nil, drained: 9_000, newest: 9_000, ending: true)
        XCTAssertEqual(try placed(&lane, lines, end), [[1, 9_000]])
    }
}
