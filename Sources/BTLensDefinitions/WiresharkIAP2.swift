extension WiresharkExport {
    /// The iAP2 dissector (`Lua/iap2.lua`) shipped in the exported Wireshark plugin (issue 26, item 6): iAP2 on
    /// Bluetooth RFCOMM as btlens decodes it (detect, link packets and SYN parameters, control
    /// messages, identification, EA sessions, retransmissions and duplicates, with btlens'
    /// diagnostic ids as expert infos). It registers the `iap2.ea_protocol` dissector table: a
    /// definition that binds `ea-protocols` registers its dissector there under the protocol string
    /// (under "" for EA data whose protocol has none), and receives each EA payload once, as a new
    /// Tvb, with `pinfo.private` `btlens_stream` (connection, EA session, direction), `btlens_scope`
    /// (connection, EA session) and `btlens_part` (the payload's 1-based index in the frame) set.
    /// Written for the Wireshark 3.6 Lua API and Lua 5.1 to 5.4 (no bit library); checked with
    /// tshark 4.0 (Lua 5.2).
    static let iap2Lua = String(decoding: PackageResources.iap2_lua, as: UTF8.self)
}
