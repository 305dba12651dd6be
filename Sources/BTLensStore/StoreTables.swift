import BTLensCore
import BTLensDissect

/// The tables of the store and of the dataset, declared once: the migrations create them from
/// these, the rows are read through them, and docs/index.md names every column
/// (`StoreDocsTests`). Frames and diagnostics are columns of the JSONL contract's fields.
public enum StoreTables {
    static let captures = Table<CaptureFacts>(
        name: "captures", meaning: "one row per capture file: what it is, its facts, its counts",
        columns: CaptureFacts.columns, indexes: [["path"]])

    static let connections = Table<ConnectionInfo>(
        name: "connections", meaning: "one row per HCI connection the capture saw (open at its end too)",
        columns: [
            Column("controller", .integer, "the controller's index (btmon captures hold several)") {
                .of($0.key.index)
            },
            Column("handle", .integer, "the HCI connection handle") { .of($0.key.handle) },
            Column("transport", .text, "LE, BR/EDR or unknown") { .text($0.transport.rawValue) },
            Column("address", .text, "the peer's address, when the capture gave it") { .of($0.address?.description) },
            Column("role", .text, "the phone's role: central, peripheral or unknown") { .text($0.role.rawValue) },
            Column("began_before_capture", .integer, "1 when the capture started after the link was made") {
                .of($0.inferred)
            },
            Column("opened_record", .integer, "the record that opened it") { .of($0.openedRecord) },
            Column("opened_time", .text, "its time") { .of($0.openedTime) },
            Column("closed_record", .integer, "the record that closed it; null while open") { .of($0.closedRecord) },
            Column("closed_time", .text, "its time") { .of($0.closedTime) },
            Column("disconnect_reason", .text, "the HCI reason it ended with") { .of($0.disconnectReason?.name) },
            Column("att_mtu", .integer, "the ATT_MTU in force: exchanged, or 23 on an LE link seen opening; else null")
            {
                .of($0.attMTU?.value)
            },
            Column("att_mtu_default", .integer, "1 when att_mtu is the default, no exchange seen") {
                .of($0.attMTU?.isDefault)
            },
            Column("encrypted", .integer, "1 when encryption was turned on") { .of($0.lifecycle.encrypted) },
            Column("pairing_method", .text, "what the pairing exchange implies") { .of($0.lifecycle.pairingMethod) },
            Column("subscriptions", .integer, "CCCD writes seen (the subscriptions table lists them)") {
                .of($0.lifecycle.subscriptions.count)
            },
        ], indexes: [["capture"]])

    static let subscriptions = Table<(ConnectionInfo, Lifecycle.Subscription)>(
        name: "subscriptions", meaning: "one row per CCCD write: notifications or indications turned on or off",
        columns: [
            Column("connection", .integer, "the HCI connection handle") { .of($0.0.key.handle) },
            Column("record", .integer, "the record of the write") { .of($0.1.step.record) },
            Column("time", .text, "its time") { .of($0.1.step.time) },
            Column("att_handle", .integer, "the characteristic's value handle") { .of($0.1.valueHandle) },
            Column("uuid", .text, "the characteristic's UUID, when discovery was captured") {
                .of($0.1.uuid?.description)
            },
            Column("kind", .text, "notify, indicate, both or off") { .text($0.1.kind.rawValue) },
        ], indexes: [["capture"]])

    static let frames = Table<Event>(
        name: "frames", meaning: "one row per framed message (the JSONL contract's a5 and message events)",
        columns: [Column("type", .text, "a5 or message") { .text(EventType($0).name) }]
            + ["record", "time", "direction", "connection"].map { Column.field($0, of: .a5) }
            + [
                "transport", "att_handle", "uuid", "ea_session", "rfcomm_channel", "cid", "framing", "command",
                "sequence", "checksum_ok", "dissector", "command_name", "kind", "response_to", "latency_ms",
            ].map { Column.field($0, of: $0 == "framing" ? .message : .a5) }
            + [
                Column("payload_length", .integer, "the payload's length in bytes") { e in
                    guard case .frame(let f) = e.body else { return .null }
                    return .of(f.frame.payload.count)
                }
            ],
        indexes: [["capture", "record"], ["dissector", "command"]])

    static let diagnostics = Table<Event>(
        name: "diagnostics", meaning: "one row per diagnostic (btlens diagnostics lists the ids)",
        columns: ["id"].map { Column.field($0, of: .diagnostic) }
            + [
                Column("severity", .text, "note, warning or error") { e in
                    guard case .diagnostic(let d) = e.body else { return .null }
                    return .text(d.severity.name)
                }
            ]
            + ["record", "time", "direction", "message", "connection", "detected_record"].map {
                Column.field($0, of: .diagnostic)
            }
            + [
                Column(
                    "verbose_only", .integer, "1 for a consequence of a problem said once, shown with --verbose only"
                ) {
                    .of(!$0.isTop)
                }
            ],
        indexes: [["capture"], ["id"]])

    static let commands = Table<(key: CommandStats.Key, entry: CommandStats.Entry)>(
        name: "commands", meaning: "one row per capture, dissector and command: counts and latency, as btlens stats",
        columns: [
            Column("dissector", .text, "the dissector that named the command") { .text($0.key.dissector) },
            Column("command", .integer, "the command id") { .of($0.key.command) },
            Column("command_name", .text, "its name") { .of($0.entry.name) },
            Column("sent", .integer, "frames the phone sent") { .of($0.entry.sent) },
            Column("received", .integer, "frames the phone received") { .of($0.entry.received) },
            Column("answered", .integer, "requests a response answered") { .of($0.entry.answered) },
            Column("unanswered", .integer, "requests no response answered") { .of($0.entry.unanswered) },
        ]
            + ["min", "median", "p95", "max"].map { name in
                Column("latency_\(name)_ms", .real, "the \(name) latency of the answered ones, as btlens stats") {
                    row in CommandStats.latency(row.entry)?.first { $0.0 == name }.map { .real($0.1) } ?? .null
                }
            },
        indexes: [["capture"], ["dissector", "command"]])

    static let appLogs = Table<AppLogAlignment>(
        name: "app_logs", meaning: "one row per app log merged with a capture (--app-log-beside): how it aligned",
        columns: [
            Column("source", .text, "the log's path") { .text($0.source) },
            Column(
                "method", .text,
                "content (its bytes matched packets), clock (its own clock, read as UTC), or local_clock (its local time read as the capture's clock)"
            ) {
                .text($0.method.rawValue)
            },
            Column("offset_ms", .real, "added to the log's times (read as UTC) to give the capture's") {
                .real(Double($0.offsetMicroseconds) / 1000)
            },
            Column("matched", .integer, "lines whose bytes agreed with that offset") { .of($0.matched) },
            Column("untimed", .integer, "1 when the log writes no time") { .of($0.untimed) },
        ], indexes: [["capture"]])

    /// Every table, in the order the migrations create them.
    public static let all: [TableInfo] = [
        captures.info, connections.info, subscriptions.info, frames.info, diagnostics.info, commands.info,
        appLogs.info,
    ]
}
