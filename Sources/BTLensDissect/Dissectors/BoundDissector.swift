/// What the frame path reads of a stream's dissector per frame (its name, its pairing rule), read
/// once, and the stream's fit check: one reference in the stream's label, where the dissector
/// itself is an existential whose every property is a call. One per stream with a dissector, freed
/// with the stream.
final class BoundDissector {
    let name: String
    let pairing: PairingRule?
    /// Whether the dissector fits this stream's device.
    let fit = FitCheck()

    init(_ dissector: any MessageDissector) {
        name = dissector.name
        pairing = dissector.pairing
    }
}
