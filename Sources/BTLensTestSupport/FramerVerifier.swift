/// The test every reassembler and framer passes: the same input fed whole, byte by byte, and split
/// in two at every offset must give the same output. A framer that keeps state between pieces (a
/// header cut short, a checksum over parts, a length in a later piece) is tested where it breaks.
public enum FramerVerifier {
    /// The ways `input` was fed whose output differed from the whole's: empty when all agree.
    /// `frame` feeds the pieces, in order, to a new framer and gives what came out.
    public static func disagreements<Output: Equatable>(
        _ input: [UInt8], _ frame: ([[UInt8]]) -> Output
    ) -> [String] {
        let whole = frame([input])
        var found: [String] = []
        if frame(input.map { [$0] }) != whole { found.append("byte by byte") }
        for cut in 1..<max(input.count, 1) where frame([Array(input[..<cut]), Array(input[cut...])]) != whole {
            found.append("split at \(cut)")
        }
        return found
    }
}
