import BTLensCore
import BTLensDissect
import BTLensPipeline
import XCTest

/// The relay between the decoding and rendering threads: every event arrives, in order, and
/// `finish` returns only once the consumer has seen the last.
final class EventRelayTests: XCTestCase {
    func testEveryEventArrivesInOrderAcrossManyBatches() {
        let count = EventRelay.batchSize * (EventRelay.depth + 3) + 17
        var seen: [Int] = []
        let relay = EventRelay { e in seen.append(e.record) }
        for i in 1...count {
            relay.send(
                Event(
                    record: i, timestamp: Timestamp(microseconds: Int64(i)), direction: nil, connection: nil,
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
        relay.send(
            Event(
                record: 1, timestamp: Timestamp(microseconds: 1), direction: nil, connection: nil, isTop: true,
                body: .note(category: "n", text: "")))
        relay.finish()
        relay.finish()
        XCTAssertEqual(seen, 1)
    }
}

extension EventRelayTests {
    /// The sender reuses batches the consumer gave back, destroying their items: each item is
    /// released once, after the consumer saw it, and none is left when the relay goes.
    func testItemsAreReleasedOnceAndOnlyAfterTheConsumerSawThem() {
        typealias R = Relay<Tracked>
        let log = ReleaseLog()
        let count = R.batchSize * (R.depth + 6) + 5
        do {
            let relay = R { item in
                log.see(item.id)
                // A slow consumer: the sender waits on a full queue and then reuses batches.
                if item.id % R.batchSize == 0 { usleep(2000) }
            }
            for i in 0..<count { relay.send(Tracked(i, log)) }
            relay.finish()
        }
        XCTAssertEqual(log.released.sorted(), Array(0..<count))
        XCTAssertEqual(log.releasedUnseen, [])
    }
}

private final class ReleaseLog: @unchecked Sendable {
    private let lock = NSLock()
    private var seen = Set<Int>()
    private(set) var released: [Int] = []
    private(set) var releasedUnseen: [Int] = []
    func see(_ id: Int) {
        lock.lock()
        seen.insert(id)
        lock.unlock()
    }
    func release(_ id: Int) {
        lock.lock()
        released.append(id)
        if !seen.contains(id) { releasedUnseen.append(id) }
        lock.unlock()
    }
}

private final class Tracked: @unchecked Sendable {
    let id: Int
    let log: ReleaseLog
    init(_ id: Int, _ log: ReleaseLog) {
        self.id = id
        self.log = log
    }
    deinit { log.release(id) }
}

extension EventRelayTests {
    /// Batches wait by bytes too: with items of 1 MiB and a consumer that does not take them, the
    /// sender stops after the one batch the consumer holds and one waiting, not `depth` of them.
    func testTheWaitingBatchesAreBoundedInBytes() {
        let gate = DispatchSemaphore(value: 0)
        let relay = Relay<Int> { _ in gate.wait() }
        let sent = ManagedCount()
        let sender = Thread {
            for i in 0..<(Relay<Int>.depth * 2) {
                relay.send(i, bytes: 1 << 20)
                sent.add()
            }
            // finish belongs to the sending thread, as the batch being filled does.
            relay.finish()
            sent.add()
        }
        sender.start()
        usleep(300_000)
        // One held by the consumer, one waiting; the third send waits to hand its batch on (it was 9).
        XCTAssertEqual(sent.value, 2)
        for _ in 0..<(Relay<Int>.depth * 2) { gate.signal() }
        for _ in 0..<3000 where sent.value <= Relay<Int>.depth * 2 { usleep(1000) }
        XCTAssertEqual(sent.value, Relay<Int>.depth * 2 + 1, "the sender finished")
    }
}

/// A counter two threads share.
final class ManagedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
