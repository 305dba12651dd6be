import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

final class MessageFramerTests: XCTestCase {
    /// docs/protocols/a5-frame.md: "set EQ preset to bass boost", command 0x20, sequence 0x07, payload 01:
    /// A5 01 20 07 00 01 01 CF, checksum = 0xA5+0x01+0x20+0x07+0x00+0x01+0x01 mod 256.
    let spec: [UInt8] = [0xa5, 0x01, 0x20, 0x07, 0x00, 0x01, 0x01, 0xcf]

    func testTheSpecificationExample() {
        XCTAssertEqual(Frame.encode(command: 0x20, sequence: 7, payload: [0x01]), spec)
        var f = MessageFramer()
        f.append(spec)
        let step = f.next()
        XCTAssertEqual(step?.frame.command, 0x20)
        XCTAssertEqual(step?.frame.sequence, 7)
        XCTAssertEqual(step?.frame.payload, [0x01])
        XCTAssertEqual(step?.frame.checksumOK, true)
        XCTAssertNil(f.next())
        XCTAssertNil(f.partial)
    }

    /// A stream with junk, a bad-checksum frame in sync, junk that must be skipped out of sync,
    /// and frames of 0 and 255 payload bytes.
    var stream: [UInt8] {
        let bad: [UInt8] = {
            var b = Frame.encode(command: 1, sequence: 2, payload: [9])
            b[7] ^= 0xff
            return b
        }()
        return Frame.encode(command: 1, sequence: 1, payload: []) + bad + [0x00, 0xa5, 0x13]
            + Frame.encode(command: 2, sequence: 3, payload: Array(repeating: 0xa5, count: 255))
            + Frame.encode(command: 3, sequence: 4, payload: [0xa5, 0x01])
    }

    func frames(_ chunks: [[UInt8]]) -> [MessageFramer.Step] {
        var f = MessageFramer()
        var out: [MessageFramer.Step] = []
        for c in chunks {
            f.append(c)
            while let s = f.next() { out.append(s) }
        }
        return out
    }

    func testWholeByteByByteAndSplitAtEveryOffsetAgree() {
        let whole = frames([stream])
        XCTAssertEqual(whole.map(\.frame.sequence), [1, 2, 3, 4])
        XCTAssertEqual(whole.map(\.frame.checksumOK), [true, false, true, true])
        XCTAssertEqual(whole.map(\.skipped), [0, 0, 3, 0])
        XCTAssertEqual(FramerVerifier.disagreements(stream, frames), [])
    }

    func testAPartialFrameIsReportedNotDropped() {
        var f = MessageFramer()
        f.append(spec.prefix(3))
        XCTAssertNil(f.next())
        XCTAssertEqual(f.partial?.have, 3)
        XCTAssertEqual(f.partial?.need, 6)
        f.append(spec[3..<6])
        XCTAssertNil(f.next())
        XCTAssertEqual(f.partial?.need, 8)
    }

    /// A framer that keeps no payloads, or only some commands' (a consumer that only counts frames,
    /// `stats` with a definition), finds the same frames, checksums included (they are computed in
    /// place), with empty payloads where not kept and every payload's length.
    func testAFramerKeepingSomePayloadsFindsTheSameFrames() {
        for policy in [PayloadPolicy.keepNone, PayloadPolicy { $0 & 1 == 0 }, PayloadPolicy { $0 & 1 == 1 }] {
            var kept = MessageFramer()
            var counted = MessageFramer(format: .a5, payloads: policy)
            kept.append(stream)
            counted.append(stream)
            var frames = 0
            var dropped = 0
            while let k = kept.next() {
                let c = counted.next()
                var expected = k
                if !policy.keeps(k.frame.command) {
                    expected.frame.payload = []
                    dropped += 1
                }
                XCTAssertEqual(c, expected)
                XCTAssertEqual(c?.frame.payloadCount, k.frame.payload.count)
                frames += 1
            }
            XCTAssertNil(counted.next())
            XCTAssertEqual(frames, 4)
            XCTAssertGreaterThan(dropped, 0)
            XCTAssertEqual(counted.restarted.payloads, policy)
            XCTAssertEqual(counted.restarted.buffered, 0)
        }
    }

    /// A policy keeps exactly the one-byte commands it was made with, and all longer ones unless it keeps none.
    func testPayloadPolicyKeepsWhatItWasMadeWith() {
        let odd = PayloadPolicy { $0 % 3 == 1 }
        XCTAssertEqual((0...255).filter { odd.keeps(UInt16($0)) }, (0...255).filter { $0 % 3 == 1 })
        XCTAssertEqual((0...255).filter { PayloadPolicy.keepAll.keeps(UInt16($0)) }.count, 256)
        XCTAssertEqual((0...255).filter { PayloadPolicy.keepNone.keeps(UInt16($0)) }, [])
        XCTAssertTrue(odd.keeps(0x1234))
        XCTAssertTrue(PayloadPolicy { _ in false }.keeps(256))
        XCTAssertFalse(PayloadPolicy.keepNone.keeps(0xffff))
        XCTAssertNotEqual(PayloadPolicy { _ in false }, .keepNone)
    }

    func testOutOfSyncABadChecksumIsNotAFrame() {
        var f = MessageFramer()
        f.loseSync()
        var bad = spec
        bad[7] = 0
        f.append(bad + spec)
        let s = f.next()
        XCTAssertEqual(
            s?.frame,
            MessageFramer.Step(
                frame: Frame(
                    version: 1, command: 0x20, sequence: 7, flags: 0, payload: [1], checksum: 0xcf,
                    expectedChecksum: 0xcf), skipped: 8
            ).frame)
        XCTAssertEqual(s?.skipped, 8)
    }
}

final class FramedStreamTests: XCTestCase {
    func run(_ values: [[UInt8]]) -> [String] {
        var s = FramedStream()
        var out: [String] = []
        for v in values {
            for o in s.push(v[...]) {
                switch o {
                case .frame(let f): out.append("frame \(f.sequence ?? 0)\(f.checksumOK ? "" : " bad")")
                case .diagnostic(let d):
                    out.append(d.id + " " + d.fields.map { "\($0.0)=\($0.1)" }.joined(separator: ","))
                }
            }
        }
        for o in s.finish(reason: "test") {
            if case .diagnostic(let d) = o {
                out.append(d.id + " " + d.fields.map { "\($0.0)=\($0.1)" }.joined(separator: ","))
            }
        }
        return out
    }

    func frame(_ seq: UInt8, bad: Bool = false) -> [UInt8] {
        var b = Frame.encode(command: 0x20, sequence: seq, payload: [seq])
        if bad { b[b.count - 1] &+= 1 }
        return b
    }

    func testSequenceTracking() {
        XCTAssertEqual(
            run([frame(254), frame(255), frame(0), frame(0), frame(3)]),
            [
                "frame 254", "frame 255", "frame 0", "frame 0", "a5.sequence.duplicate sequence=int(0)",
                "frame 3", "a5.sequence.gap expected=int(1),actual=int(3),missing=int(2)",
            ])
    }

    func testABadChecksumFrameIsShownAndItsSequenceCounts() {
        // A5 01 20 02 00 01 02: 0xa5+0x01+0x20+0x02+0x00+0x01+0x02 = 0xcb (203); the frame carries 0xcc.
        XCTAssertEqual(
            run([frame(1), frame(2, bad: true), frame(3)]),
            [
                "frame 1", "frame 2 bad",
                "a5.checksum.bad expected=int(203),actual=int(204),sequence=int(2),command=int(32)", "frame 3",
            ])
    }

    func testJunkBetweenFramesIsAResync() {
        XCTAssertEqual(
            run([frame(1), [0x01, 0x02] + frame(2)]),
            [
                "frame 1", "a5.resync skipped_bytes=int(2)", "frame 2",
            ])
    }

    func testAStreamThatDoesNotStartWithAValidFrameIsNotA5() {
        XCTAssertEqual(run([[0x01], [0x02], [0x03], [0x04], frame(1)]), [])
        XCTAssertEqual(run([frame(1, bad: true), [0x02], [0x03], [0x04], frame(2)]), [])
    }

    func testDetectionWaitsForALongFirstFrameAndCountsPreamble() {
        let long = Frame.encode(command: 1, sequence: 5, payload: Array(repeating: 7, count: 100))
        let values =
            [[0x10, 0x11]] + stride(from: 0, to: long.count, by: 20).map { Array(long[$0..<min(long.count, $0 + 20)]) }
        XCTAssertEqual(run(values), ["a5.resync skipped_bytes=int(2)", "frame 5"])
    }

    func testTheEndInsideAFrameIsATruncation() {
        XCTAssertEqual(
            run([frame(1), Array(frame(2).prefix(4))]), ["frame 1", "a5.truncated have=int(4),need=int(6)"])
    }
}
