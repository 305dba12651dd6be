import BTLensCapture
import BTLensCore

public enum HFPDiagnostics {
    public static let lineLong = DiagnosticKind(
        "hfp.line.long", .warning,
        "An AT line ran past \(HFPLayer.lineLimit) bytes without a terminator; the bytes so far are shown as one line.")
    public static let codecMismatch = DiagnosticKind(
        "hfp.codec.mismatch", .warning,
        "An (e)SCO link's air mode is not the one the codec +BCS chose needs: mSBC and LC3-SWB are sent transparent, CVSD as CVSD (HFP 1.9 §5.7)."
    )
    public static let all = [lineLong, codecMismatch]
}

/// HFP/HSP on RFCOMM: the channels that carry AT commands (SDP's service class, `--decode-as`, or
/// data that reads as AT), split into lines. A line may span RFCOMM frames: each channel and
/// direction holds at most `lineLimit` bytes, freed with the connection.
final class HFPLayer: ConnectionLayer, RFCOMMChannelLayer {
    /// Longer than any line HFP defines (V.250 asks a command line buffer of at least 40 characters;
    /// +CIND's test response, the longest, is about 150).
    static let lineLimit = 1024

    /// Service classes whose RFCOMM channel carries AT commands: Headset, Headset Audio Gateway,
    /// Handsfree, Handsfree Audio Gateway, Headset - HS (Assigned Numbers §3.3).
    static let serviceClasses: Set<UInt16> = [0x1108, 0x1112, 0x111e, 0x111f, 0x1131]

    private struct LineKey: Hashable, Comparable {
        var channel: RFCOMMChannelKey
        var direction: Direction
        static func < (a: LineKey, b: LineKey) -> Bool {
            (a.channel, a.direction.rawValue) < (b.channel, b.direction.rawValue)
        }
    }

    private let ctx: LayerContext
    private var partial: [LineKey: (record: Int, bytes: [UInt8])] = [:]
    /// The codec the last +BCS chose on each connection, and where: the audio link that follows uses it.
    private var codecs: [ConnectionKey: (name: String, record: Int)] = [:]
    /// Open (e)SCO links by their own handle, with their ACL connection: freed when they or it close.
    private var audioLinks: [ConnectionKey: ConnectionKey?] = [:]

    init(_ ctx: LayerContext) { self.ctx = ctx }

    func isListed(by service: SDPService) -> Bool {
        service.classUUIDs.contains { $0.sig16.map(Self.serviceClasses.contains) ?? false }
    }

    /// `--decode-as rfcomm:N=hfp`, or a first line that reads as AT: AT commands never start an
    /// iAP2 link (0xFF 0x5A or 0xFF 0x55).
    func claims(_ channel: RFCOMMChannelKey, _ bytes: ArraySlice<UInt8>) -> Bool {
        ctx.decodeAs.contains(.rfcommHFP(channel: channel.dlci >> 1)) || Self.looksLikeAT(bytes)
    }

    /// Data that starts an AT dialogue, all printable: `AT` and a command, a `+` response, or a
    /// result code on a line of its own (`RING`, `OK`, …).
    static func looksLikeAT(_ bytes: ArraySlice<UInt8>) -> Bool {
        let text = bytes.drop { $0 == 0x0d || $0 == 0x0a }
        guard text.count >= 2, text.allSatisfy({ (0x20...0x7e).contains($0) || $0 == 0x0d || $0 == 0x0a }) else {
            return false
        }
        let first = String(decoding: text.prefix { $0 != 0x0d && $0 != 0x0a }, as: UTF8.self)
        return first.uppercased().hasPrefix("AT") || first.hasPrefix("+")
            || (ATCommand.resultCodes.contains(first) && first.count < text.count)
    }

    /// RFCOMM data on an AT channel: each line it completes, as an event at this record.
    func data(_ bytes: ArraySlice<UInt8>, _ ck: RFCOMMChannelKey, _ direction: Direction, _ r: CaptureRecord) {
        let key = LineKey(channel: ck, direction: direction)
        var held = partial.removeValue(forKey: key) ?? (r.number, [])
        for byte in bytes {
            if byte == 0x0d || byte == 0x0a {
                if !held.bytes.isEmpty { line(held.bytes, ck, direction, r) }
                held = (r.number, [])
                continue
            }
            if held.bytes.isEmpty { held.record = r.number }
            held.bytes.append(byte)
            if held.bytes.count == Self.lineLimit {
                ctx.say(
                    r, ck.connection.handle,
                    Diagnostic(
                        HFPDiagnostics.lineLong,
                        "AT line begun at #\(held.record) reached \(Self.lineLimit) bytes with no CR or LF",
                        fields: [("first_record", .int(held.record))]), direction)
                line(held.bytes, ck, direction, r)
                held = (r.number, [])
            }
        }
        if !held.bytes.isEmpty { partial[key] = held }
    }

    private func line(_ bytes: [UInt8], _ ck: RFCOMMChannelKey, _ direction: Direction, _ r: CaptureRecord) {
        var m = ATCommand.message(String(decoding: bytes, as: UTF8.self))
        if m.name.hasSuffix("+BCS"), case .string(let codec)? = m.fields.first(where: { $0.0 == "codec" })?.1 {
            codecs[ck.connection] = (codec, r.number)
        }
        m.fields.append(("rfcomm_channel", .int(ck.dlci >> 1)))
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: direction, connection: ck.connection.handle,
                isTop: true, body: .profile(m)))
    }

    /// An (e)SCO link opened: named with the codec negotiated on its ACL connection (`acl`), or
    /// CVSD's air mode when nothing was negotiated (HFP 1.9 §5.7).
    func audioLink(handle: UInt16, linkType: UInt8, airMode: UInt8, acl: ConnectionKey?, _ r: CaptureRecord) {
        audioLinks[ConnectionKey(index: r.controllerIndex, handle: handle)] = acl
        var fields: [(String, FieldValue)] = [
            ("sco_handle", .hex(handle)), ("link_type", .string(linkType == 2 ? "eSCO" : "SCO")),
        ]
        let negotiated = acl.flatMap { codecs[$0] }
        if let negotiated {
            fields += [("codec", .string(negotiated.name)), ("codec_record", .int(negotiated.record))]
        } else if airMode == 2 {
            fields.append(("codec", .string("CVSD")))
        }
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: r.direction, connection: acl?.handle,
                isTop: true, body: .profile(ProfileMessage(.hfp, "Audio Connection", fields))))
        // CVSD is coded by the controller (air mode CVSD); mSBC and LC3-SWB by the host (transparent).
        guard let negotiated, airMode == 2 || airMode == 3, (negotiated.name == "CVSD") != (airMode == 2) else {
            return
        }
        let mode = airMode == 2 ? "CVSD" : "transparent"
        ctx.say(
            r, acl?.handle,
            Diagnostic(
                HFPDiagnostics.codecMismatch,
                "+BCS chose \(negotiated.name) at #\(negotiated.record), but the \(linkType == 2 ? "eSCO" : "SCO") link's air mode is \(mode)",
                fields: [
                    ("codec", .string(negotiated.name)), ("codec_record", .int(negotiated.record)),
                    ("air_mode", .string(mode)),
                ]))
    }

    /// A Disconnection Complete for an (e)SCO link this layer saw open: said as its end. False for
    /// any other handle.
    func audioClosed(_ key: ConnectionKey, reason: HCIErrorCode, _ r: CaptureRecord) -> Bool {
        guard let acl = audioLinks.removeValue(forKey: key) else { return false }
        let fields: [(String, FieldValue)] = [("sco_handle", .hex(key.handle)), ("reason", .string(reason.name))]
        ctx.emit(
            Event(
                record: r.number, timestamp: r.timestamp, direction: r.direction, connection: acl?.handle,
                isTop: true, body: .profile(ProfileMessage(.hfp, "Audio Disconnection", fields))))
        return true
    }

    /// A line with no terminator when its connection or the capture ends: its bytes, undecoded.
    private func flush(_ keep: (LineKey) -> Bool, at place: RecordPlace) {
        for key in partial.keys.sorted() where !keep(key) {
            guard let held = partial.removeValue(forKey: key) else { continue }
            ctx.undecoded(
                record: place.record, time: place.time, direction: key.direction, key.channel.connection.handle,
                "AT line with no terminator on RFCOMM channel \(key.channel.dlci >> 1)", held.bytes[...])
        }
    }

    func close(_ connection: ConnectionKey, at place: RecordPlace, reason: String) {
        flush({ $0.channel.connection != connection }, at: place)
        codecs[connection] = nil
        audioLinks = audioLinks.filter { $0.value != connection }
    }

    func finish(at place: RecordPlace) { flush({ _ in false }, at: place) }
}
