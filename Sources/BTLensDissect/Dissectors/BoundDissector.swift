/// What the frame path reads of a stream's dissector per frame, read once: one reference in the
/// stream's label. The dissector is an existential, whose every property is a call and which is
/// copied whole when taken out of an optional: here it is reached through a constant of a class.
/// One per stream with a dissector, freed with the stream (and the last frame shown). A frame's
/// event carries it to the renderer's thread, which reads only `base`, a constant: the analyzer's
/// thread alone reads and changes the rest.
@usableFromInline final class BoundDissector: @unchecked Sendable {
    let base: any MessageDissector
    let name: String
    let pairing: PairingRule?
    /// Whether pairing reads a token from the payload (`field`, `echo`).
    let pairsByToken: Bool
    /// Whether the dissector fits this stream's device.
    let fit = FitCheck()
    /// The stream's pairing context, once a frame has paired in it: found again only when it ends.
    @exclusivity(unchecked) var pairs: PairingContext?
    /// Where `stats` counts its commands (`CommandStats.slot(for:)`), once a frame has been counted.
    @exclusivity(unchecked) var statsSlot: Int?

    init(_ dissector: any MessageDissector) {
        base = dissector
        name = dissector.name
        pairing = dissector.pairing
        pairsByToken = !(dissector.pairing?.path.isEmpty ?? true)
    }
}

/// The outstanding requests of one pairing context, shared by its streams' `BoundDissector`s so
/// that a frame reaches them by reference, not by a table lookup. Freed with the last stream that
/// holds it once its connection or session ends.
final class PairingContext {
    @exclusivity(unchecked) var tracker: PairingTracker
    /// False once its context ended (taken out of the layer's table): a stream looks it up again.
    @exclusivity(unchecked) var isOpen = true

    init(_ tracker: PairingTracker) { self.tracker = tracker }
}
