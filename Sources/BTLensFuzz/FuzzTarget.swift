import BTLensCore
import BTLensDissect

/// One entry point of btlens fed arbitrary bytes, for libFuzzer (`scripts/fuzz`) and for the tests
/// that replay `Fuzz/regressions`. A target must return for any input: a trap is a finding.
public struct FuzzTarget: Sendable {
    public let name: String
    /// What the bytes are taken as.
    public let summary: String
    /// Inputs to start from, besides the files `scripts/fuzz` puts in the corpus.
    public let seeds: @Sendable () -> [[UInt8]]
    public let run: @Sendable ([UInt8]) -> Void
    /// For the layer targets: the capture an input becomes, and the channels it forces.
    public let capture: (@Sendable ([UInt8]) -> (bytes: [UInt8], decodeAs: [DecodeAs]))?

    init(
        name: String, summary: String, seeds: @escaping @Sendable () -> [[UInt8]],
        run: @escaping @Sendable ([UInt8]) -> Void
    ) {
        (self.name, self.summary, self.seeds, self.run, self.capture) = (name, summary, seeds, run, nil)
    }

    /// A target whose input becomes a capture that the whole pipeline decodes.
    init(
        name: String, summary: String, seeds: @escaping @Sendable () -> [[UInt8]],
        capture: @escaping @Sendable ([UInt8]) -> (bytes: [UInt8], decodeAs: [DecodeAs])
    ) {
        (self.name, self.summary, self.seeds, self.capture) = (name, summary, seeds, capture)
        run = { bytes in
            let c = capture(bytes)
            CaptureTargets.decode(c.bytes, decodeAs: c.decodeAs)
        }
    }

    public static var all: [FuzzTarget] {
        CaptureTargets.all + LinkTargets.all + SnifferTargets.all + ProtocolTargets.all + FramingTargets.all
            + DecryptTargets.all + DefinitionTargets.all + FilterTargets.all
    }

    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    /// The dissectors the targets decode with: the built-in ones and the definitions in Dissectors/.
    public static var dissectors: DissectorTable { CaptureTargets.shipped }

    /// The repository's Dissectors/ folder, found from this file's place in the checkout.
    static let dissectorsFolder =
        String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        .dropLast(3).joined(separator: "/") + "/Dissectors"
}

/// Cuts a fuzzer's input into parts, each a tag byte, a length byte and that many bytes (fewer at
/// the end), so that one input describes a sequence of packets and a mutation can change one of them.
/// The tag says how a target uses its part (direction, channel, packet kind).
struct Parts: Sequence, IteratorProtocol {
    private var rest: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) { rest = bytes[...] }

    mutating func next() -> (tag: UInt8, body: [UInt8])? {
        guard let tag = rest.popFirst() else { return nil }
        let length = Int(rest.popFirst() ?? 0)
        let body = rest.prefix(length)
        rest = rest.dropFirst(length)
        return (tag, Array(body))
    }

    /// The inverse, for seeds.
    static func encode(_ parts: [(UInt8, [UInt8])]) -> [UInt8] {
        parts.flatMap { tag, body in [tag, UInt8(Swift.min(body.count, 255))] + body.prefix(255) }
    }
}
