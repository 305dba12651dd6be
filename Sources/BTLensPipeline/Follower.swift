import BTLensCapture
import BTLensCore
import BTLensDissect

/// Follows a live capture, handing each record and event on as soon as the record is whole.
///
/// A followed file that is truncated or replaced (Android rotates `btsnoop_hci.log` to `.last`),
/// and a TCP stream that ends, are said and followed anew: each such segment gets its own reader
/// and analyzer (record numbers start again, as in the new file). Stops at the end of a pipe, or
/// when `stop` is set (SIGINT, SIGTERM), after reporting what was left in the buffers.
public final class Follower {
    public enum Input: Sendable {
        case file(String)
        case descriptor(Int32)
        case connect(host: String, port: UInt16)
        case interface(String)
    }

    /// How long to wait before trying a missing file or a refused connection again.
    public static let retryInterval = 500_000

    let input: Input
    let stop: StopFlag
    let configuration: Configuration
    /// Called with each reader as it opens, each record, each event, each problem, and each change
    /// of input said in words.
    public var onOpen: (CaptureInfo) -> Void = { _ in }
    public var onRecord: (CaptureRecord) -> Void = { _ in }
    public var onEvent: (Event) -> Void = { _ in }
    public var onProblem: (CaptureProblem) -> Void = { _ in }
    public var onNote: (String) -> Void = { _ in }
    /// Called when a source begins after another (a file truncated or replaced, a connection made
    /// again), with why, before its first record: its records and times start again.
    public var onRestart: (String) -> Void = { _ in }
    /// Why the next source is a new start; nil for the first.
    private var restart: String?
    /// `--write`: every record received, flushed as it arrives, so an interruption loses nothing.
    public private(set) var writer: CaptureWriter?
    private let keepPath: String?
    private let keepFormat: CaptureWriter.Format

    public init(
        _ input: Input, stop: StopFlag, _ configuration: Configuration = Configuration(),
        keep: (path: String, format: CaptureWriter.Format)? = nil
    ) {
        self.input = input
        self.configuration = configuration
        keepPath = keep?.path
        keepFormat = keep?.format ?? .pcapng
        self.stop = stop
    }

    public func run() throws(CaptureOpenError) {
        switch input {
        case .file(let path):
            var waiting = false
            while !stop.isSet {
                // Only a name that is missing (between a rotation and the new file) is waited for;
                // a file that cannot be read is said at once, as timeline says it.
                guard let source = try FollowSource(path: path, stop: stop) else {
                    if !waiting { onNote("waiting for \(path) to appear") }
                    waiting = true
                    stop.sleep(microseconds: Self.retryInterval)
                    continue
                }
                waiting = false
                do {
                    try segment(source)
                } catch {
                    // Rewritten from the start before even a header could be read: start again.
                    guard source.change != nil else { throw error }
                }
                guard let change = source.change else { return }
                let why =
                    change == .truncated
                    ? "\(path) was truncated: following it from the start"
                    : "\(path) was replaced: following the new file"
                onNote(why)
                restart = why
            }
        case .descriptor(let fd):
            try segment(FollowSource(descriptor: fd, stop: stop))
        case .connect(let host, let port):
            var failing = false
            while !stop.isSet {
                let fd: Int32
                do {
                    fd = try TCPConnection.connect(host: host, port: port, stop: stop)
                } catch .stopped {
                    return
                } catch {
                    if !failing { onNote("cannot connect to \(host):\(port) (\(error)); retrying every 0.5 s") }
                    failing = true
                    stop.sleep(microseconds: Self.retryInterval)
                    continue
                }
                failing = false
                onNote("connected to \(host):\(port)")
                do {
                    try segment(FollowSource(descriptor: fd, stop: stop, owned: true))
                } catch {
                    onNote("\(host):\(port): \(error)")
                }
                if !stop.isSet {
                    onNote("\(host):\(port) closed the connection; reconnecting")
                    restart = "\(host):\(port) closed the connection: following the next one"
                }
            }
        case .interface(let name):
            try run(PcapReader(interface: name, stop: stop))
        }
    }

    /// One source to its end, or to the stop.
    private func segment(_ source: FollowSource) throws(CaptureOpenError) {
        let reader: any CaptureReader
        do {
            reader = try CaptureFormat.open(source, streaming: true)
        } catch .stopped {
            return
        }
        try run(reader, from: source)
    }

    /// One reader to its end through one analyzer. When its source is stopped inside a record, that
    /// is said in one note: the record's part is neither decoded nor taken for a cut in the capture.
    private func run(_ reader: any CaptureReader, from source: FollowSource? = nil) throws(CaptureOpenError) {
        var reader = reader
        onOpen(reader.info)
        if let why = restart {
            restart = nil
            onRestart(why)
        }
        if let keepPath, writer == nil {
            // Monitor layout for inputs with notes or controller indexes, as `convert` chooses.
            let monitor = reader.info.format == "pklg" || [2001, 254].contains(reader.info.linkType)
            let air = CaptureWriter.airLinkType(keeping: reader.info.linkType)
            writer = try CaptureWriter(path: keepPath, format: keepFormat, monitor: monitor, air: air)
        }
        let analyzer = Analyzer(configuration, emit: onEvent)
        var last = 0
        var consumed = reader.bytesRead
        do {
            while let item = try reader.next() {
                switch item {
                case .record(let r):
                    onRecord(r)
                    writer?.write(r)
                    writer?.flush()
                    last = r.number
                case .problem(let p):
                    onProblem(p)
                    last = max(last, p.recordNumber)
                }
                analyzer.process(item)
                consumed = reader.bytesRead
            }
        } catch .stopped {
            // A reader asks for bytes only when those it has do not complete a record: any it has are that record's.
            if let source, source.position > consumed {
                let p = CaptureProblem.stopped(inside: last + 1, offset: consumed, arrived: source.position - consumed)
                onProblem(p)
                analyzer.process(.problem(p))
            }
        }
        analyzer.finish()
    }
}
