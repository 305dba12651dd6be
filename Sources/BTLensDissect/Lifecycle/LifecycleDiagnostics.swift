import BTLensCore

/// Findings: what went wrong in a connection's life, in words, with the records that show it.
public enum LifecycleDiagnostics {
    public static let connectionFailed = DiagnosticKind(
        "hci.connection.failed", .warning, "A connection attempt failed; the status says why.")
    public static let supervisionTimeout = DiagnosticKind(
        "hci.disconnect.timeout", .warning,
        "The link was lost (Connection Timeout): the peer stopped answering. Said with the last traffic before it and the silence after."
    )
    public static let micFailure = DiagnosticKind(
        "hci.disconnect.mic_failure", .error,
        "The link dropped on a MIC failure: a packet failed its integrity check (keys differ, or radio corruption).")
    public static let encryptionFailed = DiagnosticKind(
        "hci.encryption.failed", .error,
        "Starting or refreshing encryption failed; the status says why (a missing key means a lost bond).")
    public static let pairingFailed = DiagnosticKind(
        "smp.pairing.failed", .error, "SMP pairing failed; the reason is named.")
    public static let attError = DiagnosticKind(
        "att.error", .warning,
        "An ATT request was refused, with what the app should do. The Attribute Not Found that ends a discovery is not a finding."
    )
    public static let valueTooLong = DiagnosticKind(
        "att.value.too_long", .error,
        "A write, notification or indication carries more than ATT_MTU − 3 bytes of value.")
    public static let notSubscribed = DiagnosticKind(
        "gatt.notification.unsubscribed", .warning,
        "Notifications or indications from a characteristic whose CCCD was not enabled first, on a link without a bond (where the server must forget subscriptions). Said once per characteristic."
    )
    public static let undiscoveredHandle = DiagnosticKind(
        "att.handle.undiscovered", .note,
        "A read or write to a handle the discovery of the server's database in this capture did not find (a cached or guessed handle), with the side that sent it. Said once per handle."
    )
    public static let invalidHandle = DiagnosticKind(
        "att.handle.invalid", .warning,
        "A read, write, notification or indication names handle 0x0000, which the specification reserves: the side that sent it used a handle it never set. Said once per side and connection."
    )
    public static let noDiscovery = DiagnosticKind(
        "gatt.discovery.none", .note, "An LE connection closed before any ATT traffic: it never reached discovery.")
    public static let reconnectLoop = DiagnosticKind(
        "hci.connection.loop", .warning,
        "The phone connected to the same device three or more times within a minute, each time briefly: a reconnect loop."
    )
    public static let flowStall = DiagnosticKind(
        "hci.flow.stall", .warning,
        "Every controller ACL buffer was in use and no Number Of Completed Packets freed one for longer than 100 ms: writes were stalled by flow control."
    )

    public static let all = [
        connectionFailed, supervisionTimeout, micFailure, encryptionFailed, pairingFailed, attError,
        valueTooLong, notSubscribed, undiscoveredHandle, invalidHandle, noDiscovery, reconnectLoop, flowStall,
    ]
}

extension Direction {
    /// The side that sent a PDU, as findings name it: sent is the phone's (host to controller).
    var sender: String { self == .sent ? "the phone" : "the accessory" }
}
