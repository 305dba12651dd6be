import BTLensCore
import BTLensTestSupport
import XCTest

@testable import BTLensDissect

/// `sequence-per`: frames numbered per value of a header field. Even G2's glasses (their frame:
/// AA, type, sequence, length, count, index, service u2be) number their frames per service.
final class SequencePerTests: XCTestCase {
    let f = FrameFormat(
        name: "g2", magic: [0xaa],
        header: [.sequence, .length(width: 1, bigEndian: true), .command(width: 2, bigEndian: true)],
        checksum: FrameFormat.Checksum(.sum8))

    /// Frames and diagnostics of `values`, counted per `key` (nil: one counter).
    func outputs(_ values: [[UInt8]], per key: SequenceKey?) -> [String] {
        var stream = FramedStream(format: f, detect: false, sequencePer: key)
        return values.flatMap { stream.push($0[...]) }.map { o in
            switch o {
            case .frame(let f): return "\(Hex.value(f.command, width: 2)) seq \(f.sequence ?? 0)"
            case .diagnostic(let d): return "\(d.id): \(d.message)"
            }
        }
    }

    /// Two services interleaved, each counting from its own number: clean per service, a gap and
    /// a repeat found in the service they happen in.
    func testEachCommandCountsOnItsOwn() {
        let frames: [(UInt16, UInt8)] = [(0x80, 1), (0x0e, 40), (0x80, 2), (0x0e, 41), (0x80, 4), (0x0e, 41)]
        let values = frames.map { f.encode(command: $0.0, sequence: $0.1, payload: [0x01]) }
        XCTAssertEqual(
            outputs(values, per: .command),
            [
                "0x80 seq 1", "0x0e seq 40", "0x80 seq 2", "0x0e seq 41", "0x80 seq 4",
                "a5.sequence.gap: expected sequence 3 for command 0x80, got 4: 1 frame missing",
                "0x0e seq 41", "a5.sequence.duplicate: sequence 41 again (command 0x0e)",
            ])
        // One counter for the stream: every switch of service is a gap.
        XCTAssertEqual(outputs(values, per: nil).filter { $0.hasPrefix("a5.sequence") }.count, 5)
        let bytes = values.flatMap { $0 }
        XCTAssertEqual(FramerVerifier.disagreements(bytes) { self.outputs($0, per: .command) }, [])
    }

    /// The key's value is a field of the diagnostic, beside the numbers.
    func testTheKeyIsAField() {
        var stream = FramedStream(format: f, detect: false, sequencePer: .command)
        _ = stream.push(f.encode(command: 0x0102, sequence: 7, payload: [])[...])
        let out = stream.push(f.encode(command: 0x0102, sequence: 9, payload: [])[...])
        guard case .diagnostic(let d) = out.last else { return XCTFail("no diagnostic") }
        XCTAssertEqual(d.id, "a5.sequence.gap")
        XCTAssertEqual(d.field("command"), .int(0x0102))
        XCTAssertEqual(d.field("missing"), .int(1))
    }

    /// At most 256 counters: frames of a 257th value are not checked, the first 256 still are.
    func testCountersAreBounded() {
        var values = (0..<300).map { f.encode(command: UInt16($0), sequence: 5, payload: []) }
        values += (0..<300).map { f.encode(command: UInt16($0), sequence: 7, payload: []) }
        let gaps = outputs(values, per: .command).filter { $0.hasPrefix("a5.sequence.gap") }
        XCTAssertEqual(gaps.count, SequenceCounters.limit)
    }
}
