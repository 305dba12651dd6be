extension WiresharkExport {
    static let iap2Lua = ""
}
