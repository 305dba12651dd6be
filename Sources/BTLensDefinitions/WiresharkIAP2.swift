import BTLensCore
import BTLensDissect

extension WiresharkExport {
    /// The iAP2 dissector shipped in the exported Wireshark plugin (issue 26, item 6): iAP2 on
    /// Bluetooth RFCOMM as btlens decodes it (detect, link packets and SYN parameters, control
    /// messages, identification, EA sessions, retransmissions and duplicates, with btlens'
    /// diagnostic ids as expert infos). It registers the `iap2.ea_protocol` dissector table: a
    /// definition that binds `ea-protocols` registers its dissector there under the protocol string
    /// (under "" for EA data whose protocol has none), and receives each EA payload once, as a new
    /// Tvb, with `pinfo.private` `btlens_stream` (connection, EA session, direction), `btlens_scope`
    /// (connection, EA session) and `btlens_part` (the payload's 1-based index in the frame) set.
    /// Written for the Wireshark 3.6 Lua API and Lua 5.1 to 5.4 (no bit library); checked with
    /// tshark 4.0 (Lua 5.2). `Lua/iap2.lua`, after the tables btlens declares in Swift.
    static var iap2Lua: String { iap2Tables + String(decoding: PackageResources.iap2_lua, as: UTF8.self) }

    /// The diagnostics the iAP2 dissector raises, by the name its Lua uses, with their Wireshark group.
    static let iap2Experts: [(name: String, kind: DiagnosticKind, group: String)] = [
        ("header_checksum", IAP2Diagnostics.headerChecksum, "CHECKSUM"),
        ("payload_checksum", IAP2Diagnostics.payloadChecksum, "CHECKSUM"),
        ("resync", IAP2Diagnostics.resync, "PROTOCOL"),
        ("truncated", IAP2Diagnostics.truncated, "MALFORMED"),
        ("gap", IAP2Diagnostics.sequenceGap, "SEQUENCE"),
        ("retransmission", IAP2Diagnostics.retransmission, "SEQUENCE"),
        ("duplicate", IAP2Diagnostics.duplicate, "SEQUENCE"),
        ("reuse", IAP2Diagnostics.psnReuse, "SEQUENCE"),
        ("control_malformed", IAP2Diagnostics.controlMalformed, "MALFORMED"),
        ("withdrawn", RFCOMMDiagnostics.guessWithdrawn, "PROTOCOL"),
    ]

    /// What `Lua/iap2.lua` takes from btlens' declarations, so that no name, id or bound is copied by hand.
    private static var iap2Tables: String {
        let names = IAP2ControlMessage.names.keys.sorted().map { id in
            "  [\(Hex.value(id, width: 4))] = \(quoted(IAP2ControlMessage.names[id] ?? "")),"
        }
        let experts = iap2Experts.map { e in
            "  \(e.name) = { \(quoted(e.kind.id)), \(quoted(e.kind.summary)), \(quoted(e.group)), "
                + "\(quoted(expertSeverity(e.kind.severity))) },"
        }
        func numbered(_ names: [String]) -> String {
            "{ " + names.enumerated().map { "[\($0.offset)] = \(quoted($0.element))" }.joined(separator: ", ") + " }"
        }
        return """
            -- Generated from btlens' declarations: control message names (IAP2ControlMessage.names), session
            -- and file transfer types (IAP2LinkPacket), the diagnostics raised as expert infos (IAP2Diagnostics;
            -- by the name iap2.lua gives them: id, summary, Wireshark group and severity) and the bound on
            -- bytes held for a guess (Limits).
            local message_names = {
            \(names.joined(separator: "\n"))
            }
            local session_types = \(numbered(IAP2LinkPacket.sessionTypes))
            local ft_types = \(numbered(IAP2LinkPacket.fileTransferTypes))
            local experts = {
            \(experts.joined(separator: "\n"))
            }
            local GUESS_LIMIT = \(Limits().guessBytes)

            """
    }
}
