import BTLensCore
import BTLensDissect
import BTLensTestSupport
import XCTest

@testable import BTLensDefinitions

/// The parts this change added that read untrusted bytes, fed random and hostile input: any trap
/// (out-of-range index, overflow, force unwrap) fails the whole test run. Deterministic seeds,
/// bounded work.
final class HostileInputTests: XCTestCase {
    /// Every width: 1, 2 and 4 bytes.
    static let algorithms = ChecksumAlgorithm.simple + CRCCatalogue.entries.map { .crc($0.crc) }

    /// Every header layout, length meaning, checksum and fragment combination over random bytes.
    func testTheFramerAndStreamsSurviveRandomBytesInEveryFormat() {
        var rng = SplitMix(seed: 1)
        let fields: [FrameFormat.HeaderField] = [
            .version, .sequence, .flags, .reserved(2), .fragmentCount, .fragmentIndex,
            .command(width: 2, bigEndian: false),
        ]
        var frames = 0
        for _ in 0..<300 {
            var header = (0..<rng.below(4)).map { _ in fields[rng.below(fields.count)] }
            header.insert(
                .command(width: 1 + rng.below(2), bigEndian: rng.below(2) == 0), at: rng.below(header.count + 1))
            header.insert(
                .length(width: 1 + rng.below(2), bigEndian: rng.below(2) == 0), at: rng.below(header.count + 1))
            let checksum =
                rng.below(6) == 0
                ? nil
                : FrameFormat.Checksum(
                    Self.algorithms[rng.below(Self.algorithms.count)],
                    covers: FrameFormat.ChecksumCoverage.allCases[rng.below(3)], bigEndian: rng.below(2) == 0)
            let format = FrameFormat(
                name: "r", magic: rng.bytes(1 + rng.below(2)), header: header,
                lengthCounts: FrameFormat.LengthCounts.allCases[rng.below(4)], checksum: checksum)
            var stream = FramedStream(format: format, detect: rng.below(2) == 0)
            // Random bytes, with the magic sprinkled in so candidates are frequent.
            for _ in 0..<20 {
                var chunk = rng.bytes(rng.below(300))
                for i in chunk.indices where rng.below(8) == 0 { chunk[i] = format.magic[0] }
                for o in stream.push(chunk[...]) { if case .frame = o { frames += 1 } }
                if rng.below(10) == 0 { _ = stream.hole() }
            }
            _ = stream.finish(reason: "the end")
        }
        XCTAssertGreaterThan(frames, 0, "some random candidates must have made it through as frames")
    }

    /// Random payloads through a definition using every field type.
    func testTheFieldDecoderSurvivesRandomPayloads() throws {
        let d = try DefinitionParser.parse(
            text: """
                protocol: tt
                enums: {e: {0: a, 1: b}}
                types:
                  inner: {seq: [{id: n, type: u1}, {id: items, type: s2be, repeat: n}, {id: tail, type: str, size: n}]}
                messages:
                  - id: 1
                    name: M
                    seq:
                      - {id: a, type: u8le}
                      - {id: b, type: s4be, scale: 0.5, offset: -3, unit: V, valid: {min: -10, max: 10}}
                      - {id: n, type: u2le}
                      - {id: blob, type: bytes, size: n}
                      - {id: g, type: inner, repeat: n}
                      - {id: k, type: u1, enum: e, flags: {0x01: x}}
                      - {id: s, type: {switch-on: k, cases: {0: inner, 1: u4, _: bytes}}}
                      - {id: rest, type: u1, repeat: eos}
                """, file: "t.yaml")
        var rng = SplitMix(seed: 2)
        for _ in 0..<3000 {
            let m = d.decode(
                Message(
                    command: 1, flags: UInt8(truncatingIfNeeded: rng.next()), payload: rng.bytes(rng.below(600)),
                    direction: .sent, characteristic: nil))
            XCTAssertEqual(m.name, "M")
        }
    }

    /// Definition text cut, spliced and mutated at random: each is either loaded or refused with a
    /// FILE:LINE message, never a trap.
    func testTheDefinitionParserSurvivesMutatedFiles() {
        let base = """
            protocol: tt
            bind: {characteristics: [{uuid: fff3, role: command}, {uuid: fff1, framing: value, message: V}], devices: ["AA:BB"]}
            framing: {magic: 0x55aa, header: [command, sequence, {length: u2le}, fragment-count, fragment-index], checksum: {algorithm: crc16-ccitt, covers: payload}}
            enums: {e: {0: a}}
            types: {t: {seq: [{id: x, type: u1}]}}
            messages:
              - {id: 0x10, name: A, response: B, seq: [{id: n, type: u1}, {id: s, type: str, size: n}, {id: r, type: t, repeat: n}]}
              - {id: 0x90, name: B}
              - {name: V, seq: [{id: v, type: u1, enum: e}]}
            pairing: {match: sequence, response-command: request | 0x80, timeout-ms: 100}
            examples: [{hex: "55 aa 10 01 00 00 01 01 ff ff", expect: {name: A}}]
            """
        let pieces = Array(base.utf8)
        let punctuation = Array("[]{}:,-#'\"&*!| \n0x9".utf8)
        var rng = SplitMix(seed: 3)
        var loaded = 0
        var refused = 0
        for _ in 0..<1500 {
            var text = pieces
            for _ in 0..<(1 + rng.below(4)) {
                switch rng.below(4) {
                case 0: if !text.isEmpty { text.remove(at: rng.below(text.count)) }
                case 1: text.insert(punctuation[rng.below(punctuation.count)], at: rng.below(text.count + 1))
                case 2: if !text.isEmpty { text[rng.below(text.count)] = UInt8(truncatingIfNeeded: rng.next()) }
                default: text = Array(text.prefix(rng.below(text.count + 1)))
                }
            }
            do {
                let d = try DefinitionParser.parse(text: String(decoding: text, as: UTF8.self), file: "m.yaml")
                _ = ExampleReplay.check(d)
                loaded += 1
            } catch {
                XCTAssertTrue(error.description.hasPrefix("m.yaml:"), error.description)
                refused += 1
            }
        }
        XCTAssertGreaterThan(loaded, 0)
        XCTAssertGreaterThan(refused, 0)
    }
}
