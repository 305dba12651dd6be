import BTLensCore
import BTLensDissect

/// What the `captures` table says of one file: where it is and which bytes it held, how it was
/// read, the facts it gives about the phone and the accessory, and what it counted.
public struct CaptureFacts: Sendable {
    public var file: CaptureFile
    public var format: String?
    public var linkType: Int?
    public var records = 0
    public var firstTime: Timestamp?
    public var lastTime: Timestamp?
    public var connections = 0
    public var frames = 0
    public var diagnostics = 0
    public var errors = 0
    public var undecodedBytes = 0
    /// The phone: its model and operating system, from the capture's notes (an iPhone's
    /// PacketLogger header: `Product: iPhone17,2`) or the bugreport's text; its controller's firmware.
    public var phone: String?
    public var os: String?
    public var controllerFirmware: String?
    public var accessory = Accessory()
    public var appLogs = 0
    /// Why the file could not be read: the row is all there is of it.
    public var error: String?
    public var indexedBy = ""

    /// The accessory's identity, from its iAP2 identification or the Device Information strings read.
    public struct Accessory: Sendable, Equatable {
        public var name: String?
        public var model: String?
        public var manufacturer: String?
        public var firmware: String?
    }

    public init(file: CaptureFile) { self.file = file }

    static let columns: [Column<CaptureFacts>] = [
        Column("id", .integer, "the capture's id: 63 bits of the SHA-256 of its absolute path") { .int($0.file.id) },
        Column("path", .text, "the file's absolute path") { .text($0.file.path) },
        Column("size", .integer, "its size in bytes") { .int($0.file.size) },
        Column("modified_ns", .integer, "its modification time, nanoseconds since 1970") { .int($0.file.modified) },
        Column("sha256", .text, "the SHA-256 of its bytes") { .text($0.file.sha256) },
        Column("format", .text, "btsnoop, pklg, pcap, pcapng, …") { .of($0.format) },
        Column("link_type", .integer, "the format's link type") { .of($0.linkType) },
        Column("records", .integer, "records read (Wireshark's frame count)") { .of($0.records) },
        Column("first_time", .text, "the first record's time") { .of($0.firstTime) },
        Column("last_time", .text, "the last record's time") { .of($0.lastTime) },
        Column("connections", .integer, "rows in connections") { .of($0.connections) },
        Column("frames", .integer, "rows in frames") { .of($0.frames) },
        Column("diagnostics", .integer, "diagnostics as btlens stats counts them (not the verbose ones)") {
            .of($0.diagnostics)
        },
        Column("errors", .integer, "of them, those of severity error") { .of($0.errors) },
        Column("undecoded_bytes", .integer, "bytes that could not be decoded") { .of($0.undecodedBytes) },
        Column("phone", .text, "the phone's model: a bugreport's, or an iPhone capture's Product note") {
            .of($0.phone)
        },
        Column("os", .text, "its operating system: a bugreport's Android release, or the Software note") {
            .of($0.os)
        },
        Column("controller_firmware", .text, "the phone's Bluetooth controller firmware, when the capture says") {
            .of($0.controllerFirmware)
        },
        Column("accessory_name", .text, "the accessory's name (iAP2 identification)") { .of($0.accessory.name) },
        Column("accessory_model", .text, "its model (iAP2, or the Model Number String read)") {
            .of($0.accessory.model)
        },
        Column("accessory_manufacturer", .text, "its maker (iAP2, or the Manufacturer Name String read)") {
            .of($0.accessory.manufacturer)
        },
        Column("accessory_firmware", .text, "its firmware (iAP2, or the Firmware Revision String read)") {
            .of($0.accessory.firmware)
        },
        Column("app_logs", .integer, "app logs merged with it (--app-log-beside; the app_logs table)") {
            .of($0.appLogs)
        },
        Column("error", .text, "why the file could not be read; null when it was") { .of($0.error) },
        Column("indexed_by", .text, "the btlens version and definitions that made the rows") { .text($0.indexedBy) },
    ]
}

/// A file as the index knows it: its id, and what tells whether it changed.
public struct CaptureFile: Sendable, Equatable {
    public var path: String
    public var id: Int64
    public var size: Int64
    public var modified: Int64
    /// Filled in when the file is read (or when its size or time changed and its bytes may not have).
    public var sha256 = ""
}
