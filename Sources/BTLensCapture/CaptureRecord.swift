import BTLensCore

/// What an HCI-level record carries, independent of the capture format.
public enum RecordKind: UInt8, Sendable, CaseIterable {
    case command, event, aclData, scoData, isoData
    /// A text record: btsnoop monitor notes, index records, user logging; PacketLogger notes.
    case note
    /// A record this reader cannot classify (its bytes are reported as undecoded).
    case unknown
    /// An LE packet heard over the air by a sniffer (pcap LINKTYPE 251, 256, 272): not HCI.
    case linkLayer

    public var name: String {
        switch self {
        case .command: return "command"
        case .event: return "event"
        case .aclData: return "acl"
        case .scoData: return "sco"
        case .isoData: return "iso"
        case .note: return "note"
        case .unknown: return "unknown"
        case .linkLayer: return "ll"
        }
    }
}

/// One record of a capture, in the same shape whatever the file format.
public struct CaptureRecord: Sendable {
    /// 1-based, equal to Wireshark's frame number.
    public var number: Int
    /// Byte offset of the record's header in the file.
    public var fileOffset: Int64
    public var timestamp: Timestamp
    public var kind: RecordKind
    /// nil for notes that have no direction.
    public var direction: Direction?
    /// Controller index (btmon monitor captures); 0 otherwise, 0xFFFF for "no controller".
    public var controllerIndex: UInt16
    /// The file counted an H4 indicator byte in the record (stripped from `payload`): what a length
    /// a writer cut records to counts. Here, it fills padding before `payload`.
    public var hadIndicator = false
    /// The HCI packet without any H4 indicator byte, or the note's bytes.
    public var payload: ArraySlice<UInt8>
    /// Length of the packet before the capture cut it (same units as `payload`).
    public var originalLength: Int
    /// For notes: what kind of note ("System Note", "New Index", …) and its text.
    public var noteCategory: String {
        get { note?.category ?? "" }
        set { note = Note(category: newValue, text: noteText) }
    }
    public var noteText: String {
        get { note?.text ?? "" }
        set { note = Note(category: noteCategory, text: newValue) }
    }
    /// Boxed: most records are packets, and a record is copied from layer to layer.
    private var note: Note?
    /// Bytes of the record that hold no packet bytes (headers, H4 byte): for byte accounting.
    public var headerLength: Int = 0
    /// For `linkLayer` records: what the sniffer said about the packet.
    public var air: AirPacket?

    public init(
        number: Int, fileOffset: Int64, timestamp: Timestamp, kind: RecordKind, direction: Direction?,
        controllerIndex: UInt16 = 0, payload: ArraySlice<UInt8>, originalLength: Int
    ) {
        self.number = number
        self.fileOffset = fileOffset
        self.timestamp = timestamp
        self.kind = kind
        self.direction = direction
        self.controllerIndex = controllerIndex
        self.payload = payload
        self.originalLength = originalLength
    }

    /// The capture kept fewer bytes than the packet had: not a protocol error.
    public var isTruncated: Bool { payload.count < originalLength }
}

/// What a capture reader yields: a record, or a problem with the file itself at a place in it.
public enum CaptureItem: Sendable {
    case record(CaptureRecord)
    case problem(CaptureProblem)
}

/// A problem in the capture file's own structure (not in the protocols it carries).
public struct CaptureProblem: Sendable, Equatable {
    public var diagnostic: Diagnostic
    /// The record it concerns (1-based); the record that could not be read, when reading stopped.
    public var recordNumber: Int
    public var fileOffset: Int64
    /// Bytes of the file that this problem stands for and no record carries (a record that could not
    /// be classified, a header read before its length was refused): for byte accounting.
    public var bytes = 0

    public init(diagnostic: Diagnostic, recordNumber: Int, fileOffset: Int64, bytes: Int = 0) {
        self.diagnostic = diagnostic
        self.recordNumber = recordNumber
        self.fileOffset = fileOffset
        self.bytes = bytes
    }

    /// A problem a reader found at a record and file offset, as the reader hands it on.
    static func item(
        _ kind: DiagnosticKind, _ number: Int, _ offset: Int64, _ message: String,
        _ fields: [(String, FieldValue)] = []
    ) -> CaptureItem {
        .problem(
            CaptureProblem(
                diagnostic: Diagnostic(kind, message, fields: fields), recordNumber: number, fileOffset: offset))
    }
}

/// A note record's category and text.
final class Note: Sendable {
    let category: String
    let text: String
    init(category: String, text: String) {
        self.category = category
        self.text = text
    }
}
