import XCTest
import BTLensCore
import BTLensDissect
import BTLensReport

/// The relay between the decoding and rendering threads: every event arrives, in order, and
/// `finish` returns only once the consumer has seen the last.
final class EventRelayTests: XCTestCase {
    func testEveryEventArrivesInOrderAcrossManyBatches() {
        let count = EventRelay.batchSize * (EventRelay.depth + 3) + 17
        var seen: [Int] = []
        let relay = EventRelay { e in seen.append(e.record) }
        for i in 1...count {
            relay.send(Event(record: i, timestamp: Timestamp(microseconds: Int64(i)), direction: nil, connection: nil,
                             isTop: true, body: .note(category: "n", text: "")))
        }
        relay.finish()
        XCTAssertEqual(seen, Array(1...count))
    }

    func testFinishWithNothingSentReturns() {
        var seen = 0
        let relay = EventRelay { _ in seen += 1 }
        relay.finish()
        XCTAssertEqual(seen, 0)
    }
}

extension EventRelayTests {
    func testFinishingTwiceIsHarmless() {
        var seen = 0
        let relay = EventRelay { _ in seen += 1 }
        relay.send(Event(record: 1, timestamp: Timestamp(microseconds: 1), direction: nil, connection: nil, isTop: true,
                         body: .note(category: "n", text: "")))
        relay.finish()
        relay.finish()
        XCTAssertEqual(seen, 1)
    }
}
