extension WiresharkExport {
    /// The Lua every exported protocol shares (`Lua/runtime.lua`): streams, framing (MessageFramer and
    /// FramedStream ported), request pairing, payload fields and the diagnostics btlens declares for them.
    static let runtime = String(decoding: PackageResources.runtime_lua, as: UTF8.self)
}
