import BTLensCapture
import BTLensCore
import BTLensDissect

/// Runs the whole pipeline over bytes in memory and collects every event.
public func analyze(
    _ bytes: [UInt8], chunk: Int? = nil, dissectors: DissectorTable = .builtIn,
    decodeAs: [DecodeAs] = [], keys: [LinkLayerKey] = []
) throws -> [Event] {
    var events: [Event] = []
    let source: any ByteSource = chunk.map { DribbleSource(bytes, size: $0) } ?? MemorySource(bytes)
    var reader = try CaptureFormat.open(source)
    var configuration = Configuration(decodeAs: decodeAs, dissectors: dissectors)
    configuration.linkLayerKeys = keys
    let analyzer = Analyzer(configuration) { events.append($0) }
    while let item = try reader.next() { analyzer.process(item) }
    analyzer.finish()
    return events
}

/// Hands out at most `size` bytes per read, as a pipe or a slow disk might.
public struct DribbleSource: ByteSource {
    var inner: MemorySource
    let size: Int
    public init(_ bytes: [UInt8], size: Int) {
        inner = MemorySource(bytes)
        self.size = size
    }
    public mutating func read(maxCount: Int) -> [UInt8] { inner.read(maxCount: min(maxCount, size)) }
}

extension Event {
    /// The A5 frame of this event in the shape the scripts expect.
    public var expectedFrame: LESession.ExpectedFrame? {
        guard case .frame(let a) = body, a.isA5, let d = direction else { return nil }
        return LESession.ExpectedFrame(
            record: record, direction: d, attHandle: a.attHandle ?? a.eaSession ?? 0,
            command: UInt8(truncatingIfNeeded: a.frame.command), sequence: a.frame.sequence ?? 0,
            payload: a.frame.payload, checksumOK: a.frame.checksumOK)
    }

    public var diagnostic: Diagnostic? {
        if case .diagnostic(let d) = body { return d }
        return nil
    }
}
