import BTLensCapture
import BTLensCore
import BTLensDissect

/// Everything a report shows, built while the capture streams past (`ReportBuilder`) and rendered
/// as HTML, Markdown, text or JSON. Bounded: the timeline keeps a window, not every event.
public struct Report {
    /// Bumped when a JSON field changes meaning or disappears (docs/report.md).
    public static let version = 1
    /// Rendered pages are written out in pieces of about this many bytes, not held whole.
    public static let piece = 1 << 18

    public struct Row {
        public var index: Int
        public var record: Int
        /// Seconds since the first record.
        public var offset: String
        /// `<` sent, `>` received, `=` note, `!` file-level problem.
        public var arrow: String
        public var connection: UInt16?
        public var layer: String
        public var text: String
        public var severity: Severity?
        public var diagnosticId: String?
        /// The A5 stream a frame belongs to, and its command's name.
        public var stream: String?
        public var command: String?
        public var fields: [(String, String)] = []
        /// The payload as the text timeline shows it: the first 64 bytes in hex and a count of the rest.
        public var hex: String? {
            get { dump?.text }
            set { dump = newValue.map(Dump.text) }
        }
        /// Kept as bytes, made text when shown: half the size.
        var dump: Dump?
        /// A line of an app's log (`--app-log`), placed among the events.
        public var log: LogLine?
    }

    /// A line of an app's log as a row shows it: where it is written, and the record whose bytes it
    /// shows.
    public struct LogLine: Equatable {
        public var source: String
        public var line: Int
        public var level: String?
        public var tag: String?
        public var message: String
        public var matchesRecord: Int?
    }

    /// How an app log's clock was put on the capture's (its `log.alignment` event).
    public struct LogAlignment {
        public var source: String
        /// Added to the log's times (read as UTC) to give the capture's.
        public var offsetMicroseconds: Int64
        public var matched: Int
        public var method: String
        /// Its lines among the timeline's events.
        public var lines = 0
    }

    enum Dump {
        case bytes([UInt8], length: Int)
        case text(String)

        var text: String {
            switch self {
            case .bytes(let b, let length):
                return Hex.spaced(b) + (length > b.count ? " … (+\(length - b.count) bytes)" : "")
            case .text(let s): return s
            }
        }
    }

    public struct Message {
        /// The app log's lane (a log line that shows bytes), or nil: an arrow between phone and accessory.
        public var log: LogLine?
        public var row: Int
        public var record: Int
        public var sent: Bool
        public var label: String
        public var detail: String
        public var responseTo: Int?
        public var latencyMs: Double?
        public var diagnostics: [String] = []
    }

    public struct DiagnosticGroup {
        public var id: String
        public var severity: Severity
        public var summary: String
        public var count: Int
        /// The first records it was raised at, each once (at most `ReportBuilder.recordsPerDiagnostic`).
        public var records: [Int]
        public var firstMessage: String
    }

    public struct Stream {
        public var label: String
        public var connection: UInt16
        public var dissector: String?
        public var sent: Int
        public var received: Int
    }

    public struct Service {
        public var server: String
        public var uuid: String
        public var name: String?
        public var characteristics: [(handle: UInt16, uuid: String, name: String?)]
    }

    public struct Advertiser {
        public var address: String
        public var name: String?
        public var reports: Int
        public var firstRecord: Int
        public var lastRecord: Int
        public var rssi: ClosedRange<Int>
        public var services: [String]
    }

    public struct AdvertisersNotListed {
        public var devices: Int
        public var reports: Int
        /// The devices' count reached its bound (`AdvertisingTable.uncountedDeviceLimit`).
        public var atLeast: Bool

        /// Nil when the table kept every device.
        init?(_ t: AdvertisingTable) {
            guard t.uncounted > 0 else { return nil }
            (devices, reports, atLeast) = (t.uncountedDevices, t.uncounted, t.uncountedDevicesIsLowerBound)
        }
    }

    public struct Connection {
        public var handle: UInt16
        public var address: String?
        /// The GAP Device Name, when the capture read it.
        public var name: String?
        public var transport: String
        public var role: String
        public var opened: Int?
        public var closed: Int?
        /// Seconds since the first record.
        public var openedAt: String?
        public var closedAt: String?
        public var reason: String?
        public var inferred: Bool
        /// Its life in words: parameters, encryption, MTU, discovery, subscriptions.
        public var steps: [String] = []
        public var attMTU: Int?
        /// True when `attMTU` is LE's default because no MTU exchange was captured.
        public var attMTUDefault = false
    }

    public struct Command {
        public var dissector: String
        public var command: UInt16
        public var name: String?
        public var sent, received, answered, unanswered: Int
        /// min, median, p95, max in ms.
        public var latency: [(String, Double)]?
    }

    public var file: String
    public var format: String
    public var linkType: String
    public var records: Int
    public var recordsByKind: [(String, Int)]
    public var truncatedRecords: Int
    public var firstTime: Timestamp?
    public var lastTime: Timestamp?
    public var captureInformation: [String]
    public var connections: Connections
    /// Devices seen advertising while the phone scanned, most reports first.
    public var advertisers: [Advertiser] = []
    /// The devices past the advertising table's bound: counted, not listed.
    public var advertisersNotListed: AdvertisersNotListed?
    public var accessories: [IAP2Identification]
    public var services: [Service]
    public var streams: [Stream]
    public var diagnostics: [DiagnosticGroup]
    public var commands: [Command]
    public var rows: Rows
    public var messages: [Message]
    /// Top-level events in the capture, and what the timeline window left out.
    public var events: Int
    public var omittedEvents: Int
    public var window: String
    /// The user asked for a range (`--from`/`--to`): the text reports show its rows, not only excerpts.
    public var isRange = false
    /// Frames per stream over time: bucket width in seconds and counts.
    public var bucketSeconds: Double
    public var series: [(stream: String, counts: [Int])]
    public var undecodedBytes: Int
    public var redacted: Bool
    /// Which definition files named the frames, from where.
    public var definitions: DefinitionSources?
    /// `--filter`: the events the timeline, charts, messages, commands and findings hold.
    public var filter: String?
    /// `--app-log`: each log's alignment, in the order they were said.
    public var appLogs: [LogAlignment] = []
    /// App log lines among `events`.
    public var logLines = 0
}
