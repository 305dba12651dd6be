import BTLensCore
import XCTest

@testable import BTLensDissect

final class PairingTests: XCTestCase {
    func t(_ ms: Int64) -> Timestamp { Timestamp(microseconds: ms * 1000) }
    func request(_ record: Int, _ command: UInt16, seq: UInt8? = nil, at ms: Int64) -> PairingTracker.Request {
        PairingTracker.Request(record: record, time: t(ms), command: command, name: nil, sequence: seq)
    }

    func testOldestOutstandingWithAnOrMask() {
        var p = PairingTracker(rule: PairingRule(match: .oldest, responseCommand: .or(0x80)))
        XCTAssertNil(p.request(request(1, 0x20, at: 0)))
        XCTAssertNil(p.request(request(2, 0x21, at: 1)))
        XCTAssertNil(p.request(request(3, 0x20, at: 2)))
        // 0xa1 answers 0x21 even though an older 0x20 is waiting; 0xa0 answers the oldest 0x20.
        XCTAssertEqual(
            p.response(command: 0xa1, sequence: nil, time: t(5)),
            PairedResponse(requestRecord: 2, requestCommand: 0x21, latencyMicroseconds: 4000))
        XCTAssertEqual(p.response(command: 0xa0, sequence: nil, time: t(6))?.requestRecord, 1)
        XCTAssertEqual(p.response(command: 0xa0, sequence: nil, time: t(7))?.requestRecord, 3)
        XCTAssertNil(p.response(command: 0xa0, sequence: nil, time: t(8)))
        XCTAssertTrue(PairingRule.ResponseCommand.or(0x80).couldRespond(0xa0))
        XCTAssertFalse(PairingRule.ResponseCommand.or(0x80).couldRespond(0x05))
    }

    func testSameSequence() {
        var p = PairingTracker(rule: PairingRule(match: .sequence, responseCommand: .any))
        _ = p.request(request(1, 0x10, seq: 7, at: 0))
        _ = p.request(request(2, 0x11, seq: 8, at: 0))
        XCTAssertEqual(p.response(command: 0x99, sequence: 8, time: t(3))?.requestRecord, 2)
        XCTAssertNil(p.response(command: 0x99, sequence: 9, time: t(3)))
        XCTAssertEqual(p.response(command: 0x42, sequence: 7, time: t(4))?.requestRecord, 1)
    }

    func testSameSequenceAndCommand() {
        var p = PairingTracker(rule: PairingRule(match: .sequence, responseCommand: .same))
        _ = p.request(request(1, 0x10, seq: 7, at: 0))
        XCTAssertNil(p.response(command: 0x11, sequence: 7, time: t(1)))
        XCTAssertEqual(p.response(command: 0x10, sequence: 7, time: t(1))?.requestRecord, 1)
    }

    func testATableAndRequestsItDoesNotList() {
        var p = PairingTracker(rule: PairingRule(match: .oldest, responseCommand: .table([0x01: 0x41, 0x02: 0x42])))
        _ = p.request(request(1, 0x03, at: 0))
        XCTAssertTrue(p.outstanding.isEmpty, "0x03 takes no response: it is not tracked")
        _ = p.request(request(2, 0x02, at: 0))
        XCTAssertNil(p.response(command: 0x41, sequence: nil, time: t(1)))
        XCTAssertEqual(p.response(command: 0x42, sequence: nil, time: t(1))?.requestRecord, 2)
        XCTAssertTrue(PairingRule.ResponseCommand.table([0x01: 0x41]).couldRespond(0x41))
        XCTAssertFalse(PairingRule.ResponseCommand.table([0x01: 0x41]).couldRespond(0x01))
    }

    /// Times anywhere in Int64 (a pcapng block's time saturates at Int64.min or .max): their
    /// difference wrapped, so a request from the far past looked 9e15 ms *after* its response and
    /// was paired. The elapsed time saturates: the request is long expired.
    func testTimesFarApartAreNeitherWrappedNorPaired() {
        var p = PairingTracker(
            rule: PairingRule(match: .oldest, responseCommand: .plus(1), timeoutMicroseconds: 100_000))
        _ = p.request(
            PairingTracker.Request(
                record: 1, time: Timestamp(microseconds: .min), command: 0x10, name: nil, sequence: nil))
        let now = Timestamp(microseconds: 1_700_000_000_000_000)
        XCTAssertEqual(p.expire(now: now).map(\.record), [1])
        _ = p.request(
            PairingTracker.Request(
                record: 2, time: Timestamp(microseconds: .max), command: 0x10, name: nil, sequence: nil))
        XCTAssertEqual(
            p.response(command: 0x11, sequence: nil, time: Timestamp(microseconds: .min))?.latencyMicroseconds, .min)
    }

    func testRequestsExpireAfterTheTimeout() {
        var p = PairingTracker(
            rule: PairingRule(match: .oldest, responseCommand: .plus(1), timeoutMicroseconds: 100_000))
        _ = p.request(request(1, 0x10, at: 0))
        _ = p.request(request(2, 0x10, at: 50))
        XCTAssertEqual(p.expire(now: t(100)).map(\.record), [], "exactly the timeout is not past it")
        XCTAssertEqual(p.expire(now: t(101)).map(\.record), [1])
        XCTAssertEqual(p.response(command: 0x11, sequence: nil, time: t(120))?.requestRecord, 2)
    }

    func testOutstandingRequestsAreBounded() {
        var p = PairingTracker(rule: PairingRule(match: .oldest, responseCommand: .same))
        for i in 0..<p.limit { XCTAssertNil(p.request(request(i + 1, 1, at: 0))) }
        XCTAssertEqual(p.request(request(999, 1, at: 0))?.record, 1)
        XCTAssertEqual(p.outstanding.count, p.limit)
        XCTAssertEqual(p.drain().count, p.limit)
        XCTAssertTrue(p.outstanding.isEmpty)
    }

    /// A token in the payload (Even G2's message id in protobuf field 2): a response answers the
    /// request with its token, whatever the order; one with no token, or a token no request has,
    /// answers none.
    func testAToken() {
        var p = PairingTracker(rule: PairingRule(match: .field, responseCommand: .same))
        for (record, token) in [(1, "12"), (2, "13"), (3, "14")] {
            var r = request(record, 0x8000, at: 0)
            r.token = token
            _ = p.request(r)
        }
        XCTAssertEqual(p.response(command: 0x8000, sequence: nil, token: "13", time: t(2))?.requestRecord, 2)
        XCTAssertNil(p.response(command: 0x8001, sequence: nil, token: "12", time: t(2)), "another command")
        XCTAssertNil(p.response(command: 0x8000, sequence: nil, token: nil, time: t(2)))
        XCTAssertNil(p.response(command: 0x8000, sequence: nil, token: "13", time: t(3)), "answered already")
        XCTAssertEqual(p.response(command: 0x8000, sequence: nil, token: "14", time: t(3))?.requestRecord, 3)
    }
}
