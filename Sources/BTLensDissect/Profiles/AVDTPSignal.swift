import BTLensCore

/// One whole AVDTP signalling message (AVDTP 1.3 §8.4–8.20): header, signal identifier and the
/// signal's parameters, named. Fragmented messages are joined by `AVDTPAssembler` first.
public struct AVDTPSignal: Sendable {
    /// Message type, the header's low 2 bits (§8.4.3).
    public enum MessageType: UInt8, Sendable {
        case command = 0
        case generalReject = 1
        case accept = 2
        case reject = 3

        public var name: String { ["command", "general_reject", "accept", "reject"][Int(rawValue)] }
    }

    /// The transaction label (4 bits) that pairs a response with its command.
    public var transaction: UInt8
    public var messageType: MessageType
    /// The signal identifier (6 bits).
    public var signal: UInt8
    /// The stream endpoints a command acts on (Start and Suspend may name several).
    public var acpSEIDs: [UInt8] = []
    /// The initiator's endpoint, in a Set Configuration command.
    public var intSEID: UInt8?
    /// The codec a Set Configuration or Reconfigure command, or a Get Configuration response,
    /// configures: "SBC 48000 Hz joint stereo, bitpool 2-53".
    public var codec: String?
    public var message: ProfileMessage

    public var name: String { message.name }

    /// A single-packet message (packet type 0b00, §8.4.1), as `AVDTPAssembler` returns it. Throws
    /// `avdtp.malformed` when the message is shorter than its signal needs; bytes after the
    /// parameters are not read.
    public init(_ bytes: ArraySlice<UInt8>) throws(AVDTPMalformed) {
        var r = ByteReader(bytes)
        guard let header = r.peek(0), let id = r.peek(1) else {
            throw AVDTPMalformed(
                "AVDTP signalling message", ShortRead(offset: 0, needed: 2, available: bytes.count), bytes.count)
        }
        transaction = header >> 4
        messageType = MessageType(rawValue: header & 0x03) ?? .command
        signal = id & 0x3f
        message = ProfileMessage(.avdtp, AVDTPNames.signal(signal))
        guard header & 0x0c == 0 else {
            throw AVDTPMalformed(
                "\(message.name) \(messageType.name): packet type \(header >> 2 & 0x03), expected 0 (single)",
                bytes.count)
        }
        message.fields = [
            ("transaction", .int(transaction)), ("message_type", .string(messageType.name)), ("signal", .hex(signal)),
        ]
        do throws(ShortRead) {
            try r.skip(2)
            switch messageType {
            case .command: try command(&r)
            case .accept: try accept(&r)
            case .reject: try reject(&r)
            case .generalReject: break
            }
        } catch {
            throw AVDTPMalformed("\(message.name) \(messageType.name)", error, bytes.count)
        }
    }

    /// An ACP or INT SEID octet: the SEID in the high 6 bits (§8.21.4).
    private static func seid(_ r: inout ByteReader) throws(ShortRead) -> UInt8 { try r.u8() >> 2 }

    private mutating func command(_ r: inout ByteReader) throws(ShortRead) {
        guard (0x02...0x0d).contains(signal) else { return }
        let acp = try Self.seid(&r)
        acpSEIDs = [acp]
        switch signal {
        case 0x03:
            intSEID = try Self.seid(&r)
        case 0x07, 0x09:
            while !r.isAtEnd { acpSEIDs.append(try Self.seid(&r)) }
        default: break
        }
        message.fields.append(("acp_seid", .int(acp)))
        if acpSEIDs.count > 1 { message.fields.append(("acp_seids", .string(Self.list(acpSEIDs)))) }
        if let intSEID { message.fields.append(("int_seid", .int(intSEID))) }
        switch signal {
        case 0x03, 0x05: try capabilities(&r, configuration: true)
        case 0x0b: message.fields.append(("security_data", .bytes(Array(r.rest()))))
        case 0x0d: message.fields.append(("delay_ms", .decimal(Int64(try r.u16be()), scale: 1)))
        default: break
        }
    }

    private mutating func accept(_ r: inout ByteReader) throws(ShortRead) {
        switch signal {
        case 0x01:
            // SEP information, 2 octets each (§8.6.2): SEID, in use; media type, TSEP.
            var seps: [String] = []
            while !r.isAtEnd {
                var sep = ByteReader(try r.bytes(2))
                let (a, b) = (try sep.u8(), try sep.u8())
                let role = b & 0x08 != 0 ? "sink" : "source"
                seps.append("\(a >> 2) \(AVDTPNames.mediaType(b >> 4)) \(role)\(a & 0x02 != 0 ? " in use" : "")")
            }
            message.fields.append(("seps", .string(seps.isEmpty ? "none" : seps.joined(separator: ", "))))
        case 0x02, 0x0c: try capabilities(&r, configuration: false)
        case 0x04: try capabilities(&r, configuration: true)
        case 0x0b: message.fields.append(("security_data", .bytes(Array(r.rest()))))
        default: break
        }
    }

    /// Reject parameters (§8.6–8.19): the error code, after the failing service category
    /// (Set Configuration, Reconfigure) or ACP SEID (Start, Suspend). Abort is never rejected.
    private mutating func reject(_ r: inout ByteReader) throws(ShortRead) {
        var category: UInt8?
        switch signal {
        case 0x03, 0x05: category = try r.u8()
        case 0x07, 0x09: message.fields.append(("acp_seid", .int(try Self.seid(&r))))
        case 0x0a where r.isAtEnd: return
        case 0x01...0x0d: break
        default: return
        }
        let code = try r.u8()
        message.fields += [("error_code", .hex(code)), ("error_name", .string(AVDTPNames.error(code)))]
        if let category { message.fields.append(("service_category", .string(AVDTPNames.serviceCategory(category)))) }
    }

    private mutating func capabilities(_ r: inout ByteReader, configuration: Bool) throws(ShortRead) {
        let capabilities = try AVDTPCapabilities(&r)
        message.fields += capabilities.fields
        if configuration { codec = capabilities.codec?.summary }
    }

    static func list(_ seids: [UInt8]) -> String { seids.map { String($0) }.joined(separator: " ") }
}

/// A signalling message shorter than its signal needs: `diagnostic` is `avdtp.malformed`, saying
/// what was expected at which offset of the message, and counting the message's bytes undecoded.
public struct AVDTPMalformed: Error, Sendable {
    public var diagnostic: Diagnostic

    init(_ what: String, _ short: ShortRead, _ length: Int) {
        diagnostic = Diagnostic(
            AVDTPDiagnostics.malformed,
            "\(what) of \(Self.bytes(length)): needs \(Self.bytes(short.needed)) at offset \(short.offset), found \(short.available)",
            fields: [
                ("offset", .int(short.offset)), ("needed", .int(short.needed)), ("available", .int(short.available)),
            ])
        diagnostic.undecodedBytes = length
    }

    static func bytes(_ n: Int) -> String { n == 1 ? "1 byte" : "\(n) bytes" }

    init(_ message: String, _ length: Int) {
        diagnostic = Diagnostic(AVDTPDiagnostics.malformed, message)
        diagnostic.undecodedBytes = length
    }
}
