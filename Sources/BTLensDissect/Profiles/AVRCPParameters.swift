import BTLensCore

/// The fields of one message being decoded, and the first problem met: a PDU whose parameter
/// length passes its bytes, or parameters shorter than they say (`avrcp.malformed`).
struct AVRCPParameters {
    var fields: [(String, FieldValue)]
    var diagnostic: Diagnostic?
    /// Where the AVRCP bytes start, counted as the diagnostics' offsets are.
    let origin: Int

    init(_ m: AVCTPMessage, fields: [(String, FieldValue)]) {
        self.fields = fields
        origin = m.headerLength
    }

    func decoded(_ name: String) -> AVRCPDecoded {
        AVRCPDecoded(message: ProfileMessage(.avrcp, name, fields), diagnostic: diagnostic)
    }

    /// The `length` bytes of parameters at `r`, or nil, with the problem said, when fewer follow.
    /// Bytes past them are not read.
    mutating func parameters(_ r: inout ByteReader, length: Int, of name: String) -> ArraySlice<UInt8>? {
        if let p = try? r.bytes(length) { return p }
        let offset = origin + r.offset
        malformed(
            "\(name): parameter length \(length) at offset \(offset), but \(r.remaining) bytes follow",
            offset: offset, needed: length, available: r.remaining)
        return nil
    }

    /// Reads with `body` into the fields; a short read is said, with what was read kept. `base`: where
    /// `r`'s bytes start in the AVRCP bytes.
    mutating func read(
        _ r: inout ByteReader, _ name: String, base: Int = 0,
        _ body: (inout ByteReader, inout [(String, FieldValue)]) throws(ShortRead) -> Void
    ) {
        do throws(ShortRead) {
            try body(&r, &fields)
        } catch {
            let offset = origin + base + error.offset
            malformed(
                "\(name): parameters cut short, \(error.needed) bytes needed at offset \(offset), \(error.available) found",
                offset: offset, needed: error.needed, available: error.available)
        }
    }

    mutating func malformed(_ message: String, offset: Int, needed: Int, available: Int) {
        diagnostic = Diagnostic(
            AVRCPDiagnostics.malformed, message,
            fields: [("offset", .int(offset)), ("needed", .int(needed)), ("available", .int(available))])
    }
}
