import BTLensDissect
import Foundation

/// The benchmark capture's Aurora sessions with their frames in another framing (issue 42: a
/// length-first and an escaped framing timed on the benchmark's path): the same commands, payloads
/// and faults, and the definition that reads them, aurora-headphones.yaml with its `framing:`
/// replaced. `BenchmarkFramingTests` checks that the definition's framing is `format`.
public enum BenchmarkFraming: String, CaseIterable, Sendable {
    /// Pebble's shape: no magic, a big-endian length first, no checksum.
    case lengthFirst = "length-first"
    /// Between SLIP marks (RFC 1055), escaped, with a CRC-16/KERMIT.
    case slip

    /// The `framing:` section of the definition.
    public var yaml: String {
        switch self {
        case .lengthFirst:
            return "framing: {magic: none, header: [{length: u2be}, command, sequence, flags], max-length: 1024}"
        case .slip:
            return """
                framing:
                  delimiter: slip
                  header: [command, sequence, flags]
                  checksum: {algorithm: crc-16/kermit, endian: le}
                """
        }
    }

    /// How the generator writes the frames.
    public var format: FrameFormat {
        let header: [FrameFormat.HeaderField] = [.command(width: 1, bigEndian: true), .sequence, .flags]
        switch self {
        case .lengthFirst:
            return FrameFormat(
                name: "aurora-headphones", magic: [], header: [.length(width: 2, bigEndian: true)] + header,
                checksum: nil, maxLength: 1024)
        case .slip:
            let crc = CRCCatalogue.named("crc-16/kermit").map { ChecksumAlgorithm.crc($0) } ?? .sum16
            return FrameFormat(
                name: "aurora-headphones", magic: [], header: header,
                checksum: FrameFormat.Checksum(crc, bigEndian: false), delimiting: .slip)
        }
    }

    /// aurora-headphones.yaml (its text given) with this framing in place of `framing: a5`, and
    /// without its examples (A5 frames).
    public func definition(aurora: String) -> String {
        let withoutExamples = aurora.components(separatedBy: "\nexamples:").first ?? aurora
        return withoutExamples.replacingOccurrences(of: "\nframing: a5\n", with: "\n" + yaml + "\n")
    }
}

extension BenchmarkCapture {
    /// A frame of an Aurora session: A5 as the shipped definition has it, or in `framing`. A `bad`
    /// frame's checksum is wrong (a framing with no checksum has nothing to get wrong).
    static func auroraFrame(
        _ framing: BenchmarkFraming?, command: UInt8, sequence: UInt8, flags: UInt8 = 0, payload: [UInt8],
        bad: Bool = false
    ) -> [UInt8] {
        guard let framing else {
            var frame = Frame.encode(command: command, sequence: sequence, flags: flags, payload: payload)
            if bad { frame[frame.count - 1] &+= 1 }
            return frame
        }
        let format = framing.format
        guard bad, let checksum = format.checksum else {
            return format.encode(command: UInt16(command), sequence: sequence, flags: flags, payload: payload)
        }
        // Both checksummed framings have no magic and no length: the checksum covers header and payload.
        let right = checksum.algorithm.compute([command, sequence, flags] + payload)
        return format.encode(
            command: UInt16(command), sequence: sequence, flags: flags, payload: payload,
            messageChecksum: (right &+ 1) & 0xffff)
    }
}
