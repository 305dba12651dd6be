import BTLensCore

@testable import BTLensDissect

extension FrameFormat {
    /// What a stream of this format makes of `values`, its end included, as text: a frame as its
    /// command, payload (its first 8 bytes, then its size) and checksum verdict; a diagnostic as
    /// its id and message. The framing variants' tests compare these.
    func outputs(_ values: [[UInt8]]) -> [String] {
        var stream = FramedStream(format: self, detect: false)
        var out: [String] = []
        func say(_ o: FramedStream.Output) {
            switch o {
            case .frame(let f):
                let more = f.payload.count > 8 ? "… (\(f.payload.count))" : ""
                out.append(
                    "\(Hex.value(f.command, width: f.command > 0xff ? 4 : 2)) \(Hex.string(f.payload.prefix(8)))\(more) ok=\(f.checksumOK)"
                )
            case .diagnostic(let d): out.append("\(d.id): \(d.message)")
            }
        }
        for v in values { stream.push(v[...]).forEach(say) }
        stream.finish(reason: "the end").forEach(say)
        return out
    }
}
