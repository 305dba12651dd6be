import BTLensCore

/// One entry point of btlens fed arbitrary bytes, for libFuzzer (`scripts/fuzz`) and for the tests
/// that replay `Fuzz/regressions`. A target must return for any input: a trap is a finding.
public struct FuzzTarget: Sendable {
    public let name: String
    /// What the bytes are taken as.
    public let summary: String
    /// Inputs to start from, besides the files `scripts/fuzz` puts in the corpus.
    public let seeds: @Sendable () -> [[UInt8]]
    public let run: @Sendable ([UInt8]) -> Void

    public static var all: [FuzzTarget] { CaptureTargets.all + LinkTargets.all + ProtocolTargets.all }

    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    /// The repository's Dissectors/ folder, found from this file's place in the checkout.
    static let dissectorsFolder = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
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
