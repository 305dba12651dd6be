import BTLensCore

/// A layer that keeps state per connection. A connection that closes, or the end of the capture,
/// reaches each in the order of the analyzer's registration list: a layer that may still hand data
/// to another while it closes comes before it (iAP2 settles its guesses into RFCOMM's bound streams
/// before RFCOMM forgets its bindings).
///
/// Records and PDUs do not pass through this protocol: the layers below hand PDUs on through their
/// binding tables (`L2CAPChannelLayer`, `RFCOMMChannelLayer`).
protocol ConnectionLayer: AnyObject {
    /// A connection closed: what it left unfinished is reported at `place`, and its state is freed.
    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String)
    /// The end of the capture: what every connection left unfinished is reported at `place`.
    func finish(at place: RecordPlace)
}
