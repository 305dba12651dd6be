import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensReport

extension RecordDetails {
    /// Record `number`'s details decoded again from the start of a finished capture (`view`, once
    /// the server holds them no more): decoding any record needs the connections before it.
    /// Stops a little past the record, whose last events can complete in the records after it.
    public static func decode(
        _ reader: inout any CaptureReader, _ configuration: Configuration, record number: Int
    ) throws(CaptureOpenError) -> RecordDetails? {
        var found: RecordDetails?
        var text = TextRenderer(verbose: true)
        let origin = TrafficOrigin()
        var configuration = configuration
        configuration.lowerLayers = true
        let analyzer = Analyzer(configuration) { e in
            // Every event passes, for the seconds to count from the traffic's start as in the timeline.
            origin.pass(e, begin: { text.origin = $0 }) { e in
                guard e.record == number, let line = text.render(e) else { return }
                found?.lines.append(LivePublisher.chomp(line))
            }
        }
        while let item = try reader.next() {
            if case .record(let r) = item {
                if r.number > number + 64 { break }
                if r.number == number {
                    found = RecordDetails(record: number, bytes: Array(r.payload), originalLength: r.originalLength)
                }
            }
            analyzer.process(item)
        }
        return found
    }
}
