/// What the frame path reads of a stream's dissector per frame, read once: one reference in the
/// stream's label. The dissector is an existential, whose every property is a call and which is
/// copied whole when taken out of an optional: here it is reached through a constant of a class.
/// One per stream with a dissector, freed with the stream.
final class BoundDissector {
    let base: any MessageDissector
    let name: String
    let pairing: PairingRule?
    /// Whether the dissector fits this stream's device.
    let fit = FitCheck()

    init(_ dissector: any MessageDissector) {
        base = dissector
        name = dissector.name
        pairing = dissector.pairing
    }
}
