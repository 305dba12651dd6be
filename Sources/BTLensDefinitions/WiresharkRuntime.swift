extension WiresharkExport {
    /// The Lua every exported protocol shares (`Lua/runtime.lua`): streams, framing (MessageFramer and
    /// FramedStream ported), request pairing, payload fields and the diagnostics btlens declares for them;
    /// after the bound it takes from Swift, so that it is not copied by hand.
    static var runtime: String {
        """
        -- Generated from btlens' declarations: the most items a repeated field gives (FieldDecoder.repeatLimit).
        local REPEAT_LIMIT = \(FieldDecoder.repeatLimit)
        -- The most values one message gives (DefinitionCost.maxItems): past it, a5.payload.items.
        local ITEM_LIMIT = \(DefinitionCost.maxItems)

        """ + String(decoding: PackageResources.runtime_lua, as: UTF8.self)
    }
}
