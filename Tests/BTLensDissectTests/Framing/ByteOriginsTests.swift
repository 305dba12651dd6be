import BTLensCore
import XCTest

@testable import BTLensDissect

/// Diagnostics about bytes pushed earlier name the record where those bytes began (Wireshark's
/// frame number), whatever the values they came in.
final class ByteOriginsTests: XCTestCase {
    func place(_ record: Int) -> RecordPlace {
        RecordPlace(record: record, time: Timestamp(microseconds: Int64(record)))
    }

    /// Each value gets the record of its index + 1; returns "id #began" for each diagnostic.
    func began(_ values: [[UInt8]], stream: FramedStream = FramedStream()) -> [String] {
        var s = stream
        var out: [String] = []
        func take(_ o: FramedStream.Output) {
            if case .diagnostic(let d) = o { out.append("\(d.id) #\(d.began.map { String($0.record) } ?? "?")") }
        }
        for (i, v) in values.enumerated() { for o in s.push(v[...], at: place(i + 1)) { take(o) } }
        for o in s.finish(reason: "test") { take(o) }
        return out
    }

    // A5 frame, sequence 1, command 0x20, payload 01 (docs/protocols/a5-frame.md): a5 01 20 01 00 01 01 c9.
    let frame: [UInt8] = [0xa5, 0x01, 0x20, 0x01, 0x00, 0x01, 0x01, 0xc9]

    func testAResyncNamesTheRecordOfTheFirstSkippedByte() {
        // Detected stream: a frame, then junk over two values, then a frame.
        XCTAssertEqual(
            began([frame, [0x11], [0x22, 0x33], Frame.encode(command: 0x20, sequence: 2, payload: [2])]),
            ["a5.resync #2"])
        // Junk at the end of a value that also holds the frame before it.
        XCTAssertEqual(
            began([frame + [0x11], Frame.encode(command: 0x20, sequence: 2, payload: [2])]), ["a5.resync #1"])
        // Before detection, the preamble runs from the stream's first byte.
        XCTAssertEqual(began([[0x07, 0x00], [0x3c], frame]), ["a5.resync #1"])
    }

    func testATruncatedFrameNamesTheRecordWhereItBegan() {
        XCTAssertEqual(began([frame, Array(frame.prefix(3)), Array(frame[3..<5])]), ["a5.truncated #2"])
    }

    func testEverySplitNamesTheSameRecord() {
        // The junk begins in the second value; the cut frame (from byte 10 of the rest) in whichever holds its first byte.
        let rest = [0x11, 0x22] + Frame.encode(command: 0x20, sequence: 2, payload: [2]) + Array(frame.prefix(5))
        for cut in 1..<rest.count {
            XCTAssertEqual(
                began([frame, Array(rest[..<cut]), Array(rest[cut...])]),
                ["a5.resync #2", "a5.truncated #\(cut <= 10 ? 3 : 2)"],
                "split at \(cut)")
        }
    }

    func testOriginsStayBoundedAndKeepTheOldest() {
        var o = ByteOrigins()
        // A value framed whole leaves nothing to remember.
        o.begin(5, place(1))
        XCTAssertEqual(o.place(at: 2)?.record, 1, "the value being pushed")
        o.end(consumedUpTo: 5)
        XCTAssertNil(o.place(at: 2))
        // Values whose bytes stay buffered are remembered, at most `limit` entries, the oldest kept.
        for r in 2...1000 {
            o.begin(1, place(r))
            o.end(consumedUpTo: 5)
        }
        XCTAssertEqual(o.place(at: 5)?.record, 2, "merging keeps the oldest record")
        XCTAssertEqual(o.place(at: 1003)?.record, 1000)
        o.consumed(upTo: 1004)
        XCTAssertNil(o.place(at: 1003))
        o.begin(2, nil)
        o.end(consumedUpTo: 1004)
        XCTAssertNil(o.place(at: 1004), "bytes fed apart from a capture have no record")
    }
}
