import BTLensCore
import BTLensDissect

/// The terminal timeline: one line per event —
/// `#record  seconds  arrow  connection  LAYER  summary`, diagnostics marked with `!`.
/// `verbose` adds the lower layers (HCI framing, ACL, L2CAP), indented by depth as btmon does.
public struct TextRenderer {
    public var verbose: Bool
    public var color: Bool
    /// Times are printed relative to this (the first record's time).
    public var origin: Timestamp?
    /// The terminal's columns: a longer line has its summary cut with `…`. Nil: whole lines.
    public var width: Int?
    /// More than one `--app-log`: each line of a log begins with its name here (`AppLogEntry.names`).
    public var logNames: [String: String] = [:]

    public init(verbose: Bool = false, color: Bool = false) {
        self.verbose = verbose
        self.color = color
    }

    enum Style: String {
        case red = "\u{1b}[31m"
        case yellow = "\u{1b}[33m"
        case cyan = "\u{1b}[36m"
        case green = "\u{1b}[32m"
        case magenta = "\u{1b}[35m"
        case dim = "\u{1b}[2m"
    }

    /// The line being built, and the summary written before it (the layer column comes first).
    private var line = TextLine()
    private var summary = TextLine()

    public mutating func render(_ e: Event) -> String? {
        guard write(e) else { return nil }
        return line.string
    }

    /// The event's line appended to `sink`, with no String made for it.
    public mutating func render(_ e: Event, into sink: OutputSink) {
        guard write(e) else { return }
        line.bytes.withUnsafeBufferPointer { sink.write($0) }
    }

    /// The event's line in `line`; false when the event is not shown.
    private mutating func write(_ e: Event) -> Bool {
        guard e.isTop || verbose else { return false }
        if origin == nil { origin = e.timestamp }
        summary.reset()
        let (layer, style) = Self.describe(e, into: &summary)
        line.reset()
        if color, let style { line.add(text: style.rawValue) }
        // An app log's line is marked by its line number, L12: it is no record of the capture.
        if case .log(let l) = e.body {
            line.add("L")
            line.decimal(l.line)
            line.spaces(8 - 1 - DecimalDigits.count(UInt64(l.line.magnitude)))
        } else {
            line.add("#")
            line.decimal(e.record)
            line.spaces(8 - 1 - DecimalDigits.count(UInt64(e.record.magnitude)))
        }
        line.add(" ")
        line.offset(e.timestamp, from: origin ?? e.timestamp, width: 12)
        line.add(" ")
        line.add(text: e.direction?.arrow ?? (Self.isDiagnostic(e) ? "!" : Self.isLog(e) ? "~" : "="))
        line.add(" ")
        if let c = e.connection { line.hex(c, width: 4) } else { line.add("     -") }
        line.add(" ")
        line.add(text: layer)
        line.spaces(5 - layer.utf8.count)
        line.add(" ")
        if verbose { line.spaces(2 * e.layer.depth) }
        if !logNames.isEmpty, case .log(let l) = e.body {
            line.add(text: TerminalText.safe(logNames[l.source] ?? l.source) + ": ")
        }
        // The columns before the summary are fixed: only the summary is cut.
        let room = (width ?? .max) - (line.count - (color ? style?.rawValue.utf8.count ?? 0 : 0))
        if summary.count > room {
            line.add(text: TerminalText.fit(summary.string, columns: max(1, room)))
        } else {
            line.add(summary)
        }
        if color, style != nil { line.add("\u{1b}[0m") }
        line.add("\n")
        return true
    }

    private static func isLog(_ e: Event) -> Bool {
        switch e.body {
        case .log, .logAlignment: return true
        default: return false
        }
    }

    private static func isDiagnostic(_ e: Event) -> Bool {
        if case .diagnostic = e.body { return true } else { return false }
    }

    /// The layer column, the summary and its colour: shared with the reports.
    func describe(_ e: Event) -> (String, String, Style?) {
        var s = TextLine()
        let (layer, style) = Self.describe(e, into: &s)
        return (layer, s.string, style)
    }

    /// The layer column and colour of an event, its summary written into `out`: frames and ATT
    /// PDUs (most lines) piece by piece, the rest as one string.
    private static func describe(_ e: Event, into out: inout TextLine) -> (String, Style?) {
        switch e.body {
        case .frame(let a):
            message(a, &out)
            return (a.isA5 ? "A5" : "MSG", .green)
        case .att(let a):
            out.add(text: a.opcode.name)
            if let h = a.handle {
                out.add(" ")
                out.hex(h, width: 4)
                label(a.uuid, &out)
            }
            out.add(text: fields(a.fields))
            if let v = a.value, !v.isEmpty {
                out.add(" value ")
                out.spacedHex(v.prefix(64))
                if v.count > 64 { out.add(" …") }
            }
            if a.truncated { out.add(" (cut short by the capture)") }
            return ("ATT", nil)
        default:
            let (layer, text, style) = describeOther(e)
            out.add(text: text)
            return (layer, style)
        }
    }

    /// Everything but frames and ATT PDUs: a layer's tag, its text and its style. The longer
    /// descriptions are the helpers below, one per event kind.
    private static func describeOther(_ e: Event) -> (String, String, Style?) {
        switch e.body {
        case .note(let category, let text):
            return ("NOTE", text.isEmpty ? safe(category) : "\(safe(category)): \(safe(text))", .dim)
        case .hciCommand(let c):
            return ("HCI", "\(c.opcode)\(fields(c.fields))", nil)
        case .hciEvent(let h):
            return ("HCI", hciEvent(h), nil)
        case .hciDebug(let d):
            return ("HCI", controllerDebug(d), .dim)
        case .connection(let c):
            return ("HCI", connection(c), .magenta)
        case .acl(let a):
            let kind = ["start (non-flushable)", "continuation", "start", "complete"][Int(a.boundary.rawValue)]
            return ("ACL", "ACL \(kind) handle \(Hex.value(a.handle, width: 4)) dlen \(a.length)", nil)
        case .l2cap(let l):
            return ("L2CAP", l2cap(l, record: e.record), nil)
        case .l2capSignaling(let c):
            return (
                "L2CAP",
                "\(c.code.name) (\(Hex.value(c.code.rawValue, width: 2))) id \(c.identifier)\(fields(c.fields))", nil
            )
        case .smp(let p):
            return ("SMP", "\(p.name) (\(Hex.value(p.code, width: 2)))\(fields(p.fields))", nil)
        case .log(let l):
            return ("LOG", logLine(l), .cyan)
        case .logAlignment(let a):
            return ("LOG", logAlignment(a), .cyan)
        case .profile(let m):
            return (m.profile.descriptor.layer, profile(m), nil)
        case .rfcomm(let f):
            return ("RFCOMM", rfcomm(f), nil)
        case .sdp(let info):
            return ("SDP", sdp(info), nil)
        case .iap2(let p):
            return ("IAP2", iap2(p), nil)
        case .iap2Control(let c):
            return ("IAP2", "\(c.name) (\(Hex.value(c.id, width: 4)))\(fields(c.fields))", nil)
        case .iap2Identification(let i):
            return ("IAP2", identification(i), .magenta)
        case .gattValue(let g):
            return ("GATT", gattValue(g), nil)
        case .frame, .att:
            // Written piece by piece (`describe(_:into:)` does not come here for them).
            var s = TextLine()
            let (layer, style) = describe(e, into: &s)
            return (layer, s.string, style)
        case .undecoded(let u):
            return ("L2CAP", undecoded(u), .dim)
        case .diagnostic(let d):
            return diagnostic(d)
        }
    }

    /// An HCI event by name, with its event code (or LE Meta subevent code) after a known name.
    private static func hciEvent(_ h: HCIEventInfo) -> String {
        // Unknown codes already carry their value in the name.
        let known = h.subevent?.isKnown ?? h.code.isKnown
        let code = h.subevent.map { Hex.value($0.rawValue, width: 2) } ?? Hex.value(h.code.rawValue, width: 2)
        return (known ? "\(h.name) (\(code))" : h.name) + fields(h.fields)
    }

    /// An L2CAP basic frame: its channel, its length, and where it was reassembled from.
    private static func l2cap(_ l: L2CAPInfo, record: Int) -> String {
        var s = "L2CAP \(L2CAPChannel.name(l.cid)) (\(Hex.value(l.cid, width: 4))) len \(l.length)"
        if l.firstRecord != record { s += ", reassembled from #\(l.firstRecord)" }
        if l.truncated { s += ", cut short by the capture" }
        return s
    }

    /// One app-log line: `[tag] level message`, and the record whose bytes it shows.
    private static func logLine(_ l: AppLogEntry) -> String {
        var s = l.tag.map { "[\(safe($0))] " } ?? ""
        if let level = l.level { s += safe(level) + " " }
        s += safe(l.message)
        if let r = l.matchesRecord { s += " = #\(r)" }
        return s
    }

    /// How an app log's clock was placed on the capture's.
    private static func logAlignment(_ a: AppLogAlignment) -> String {
        // Milliseconds with the fraction there is, so that it can be given back as --app-log-offset.
        let us = a.offsetMicroseconds
        var digits = FieldValue.decimalText(us == .min ? .max : abs(us), scale: 3)
        while digits.hasSuffix("0") && digits.contains(".") { digits.removeLast() }
        if digits.hasSuffix(".") { digits.removeLast() }
        let offset = (us < 0 ? "− " : "+ ") + digits
        let how: String
        switch a.method {
        case .content:
            how =
                "from \(a.matched) line\(a.matched == 1 ? "" : "s") whose bytes are on the air"
                + (a.wholeCapture ? ", over the whole capture" : "")
        case .given: how = "as given (--app-log-offset)"
        case .clock: how = "no line's bytes agree on an offset: its clock read as UTC"
        case .localClock: how = "no line's bytes agree on an offset: the capture's clock read as the log's local time"
        }
        if a.untimed {
            return
                "\(safe(a.source)): its lines write no time: each showing bytes is placed at the packet that carried them (\(a.matched) of the first lines do), the others after the line before"
        }
        // The lines it was found from were cut short by the bytes they held.
        let cut =
            a.readAheadLines.map { ", of its first \($0) lines (the bytes read ahead to align are bounded)" } ?? ""
        return "\(safe(a.source)): its clock \(offset) ms is the capture's, \(how)\(cut)"
    }

    /// An RFCOMM frame (TS 07.10 as RFCOMM uses it): DLCI, server channel, P/F, credits, length.
    private static func rfcomm(_ f: RFCOMMInfo) -> String {
        var s = "\(f.frame.name) DLCI \(f.dlci)"
        if f.dlci != 0 { s += " (channel \(f.dlci >> 1))" }
        if f.pollFinal { s += " P/F" }
        if let c = f.credits { s += " credits \(c)" }
        s += " len \(f.length)"
        if let m = f.mux { s += ": \(m)" }
        return s + fields(f.fields)
    }

    /// An SDP PDU with its transaction ID, and the service records it returned.
    private static func sdp(_ info: SDPInfo) -> String {
        let services = info.services.map { s in
            var t = s.name.map { "\"\(safe($0))\"" } ?? "service"
            if !s.classes.isEmpty { t += " [" + s.classes.joined(separator: ", ") + "]" }
            if let ch = s.rfcommChannel { t += " on RFCOMM channel \(ch)" }
            return t
        }
        return "\(info.pdu) tid \(info.transaction)" + fields(info.fields)
            + (services.isEmpty ? "" : ": " + services.joined(separator: "; "))
    }

    /// An iAP2 link packet: its sequence and acknowledgement numbers, session and payload.
    private static func iap2(_ p: IAP2PacketInfo) -> String {
        var s = p.kind.name
        if let psn = p.psn, let pan = p.pan { s += " psn \(psn) pan \(pan)" }
        if let session = p.session, session != 0 {
            s += " session \(session)" + (p.sessionType.map { " (\($0))" } ?? "")
        }
        if p.payloadLength > 0 { s += " len \(p.payloadLength)" }
        if let d = p.detail { s += ": \(d)" }
        return s
    }

    /// The accessory's iAP2 IdentificationInformation, with its External Accessory protocols.
    private static func identification(_ i: IAP2Identification) -> String {
        let protocols = i.protocols.map { "\($0.id)=\(safe($0.name))" }.joined(separator: " ")
        return
            "Accessory \"\(safe(i.name))\" model \"\(safe(i.model))\" by \"\(safe(i.manufacturer))\" serial \(safe(i.serial)) firmware \(safe(i.firmware)) hardware \(safe(i.hardware)); EA protocols \(protocols)"
    }

    /// A GATT value put together from a long read or long write, as text or its first 64 bytes.
    private static func gattValue(_ g: GATTValue) -> String {
        let what =
            [
                "long_read": "Long read", "long_write": "Long write",
                "long_write_cancelled": "Long write cancelled",
            ][g.kind.rawValue] ?? g.kind.rawValue
        var s =
            "\(what) \(Hex.value(g.handle, width: 4))\(label(g.uuid)): \(g.value.count) bytes from #\(g.firstRecord)"
        if let t = g.text {
            s += " \"\(safe(t))\""
        } else if !g.value.isEmpty {
            s += " " + Hex.spaced(g.value.prefix(64))
        }
        return s
    }

    /// A controller's debug record: its vendor and kind, and its first bytes as for undecoded ones.
    private static func controllerDebug(_ d: ControllerDebug) -> String {
        let dump = (d.sequence.map { " sequence \($0)" } ?? "") + (d.dumpSize.map { " of a \($0)-byte dump" } ?? "")
        let shown = d.bytes.prefix(64)
        let cut = d.length - shown.count
        let what = "\(d.vendor.rawValue) \(d.kind.rawValue) (ACL \(Hex.value(d.header, width: 4)))\(dump)"
        return "\(what), \(d.length) bytes" + (shown.isEmpty ? "" : ": " + Hex.spaced(shown))
            + (cut > 0 ? " … (+\(cut) bytes)" : "")
    }

    /// Bytes no dissector decoded.
    private static func undecoded(_ u: UndecodedInfo) -> String {
        // The first 64 bytes, as for ATT values; what is not shown is counted.
        let shown = u.bytes.prefix(64)
        let cut = u.length - shown.count
        return "not decoded: \(u.what), \(u.length) bytes" + (shown.isEmpty ? "" : ": " + Hex.spaced(shown))
            + (cut > 0 ? " … (+\(cut) bytes)" : "")
    }

    /// A diagnostic, tagged and coloured by its severity.
    private static func diagnostic(_ d: Diagnostic) -> (String, String, Style?) {
        let style: Style = d.severity == .error ? .red : d.severity == .warning ? .yellow : .cyan
        let detected =
            d.field("detected_record").map { v in if case .int(let n) = v { " (detected at #\(n))" } else { "" } }
            ?? ""
        return ("!" + d.severity.name.prefix(4).uppercased(), "\(d.id): \(safe(d.message))\(detected)", style)
    }

    /// `0x0013 (fff3) SetEQPreset (0x20) seq 7 preset=bassBoost`; undecoded payloads in hex.
    private static func message(_ a: FrameInfo, _ s: inout TextLine) {
        let f = a.frame
        if let h = a.attHandle {
            s.hex(h, width: 4)
            label(a.uuid, &s)
        } else if let c = a.rfcommChannel {
            s.add("RFCOMM ")
            s.decimal(c)
        } else if let l = a.l2capChannel, l.psm == 0 {
            // A channel bound by its CID (`--decode-as l2cap:`): no PSM known.
            s.add("CID ")
            s.hex(l.cid, width: 4)
        } else if let l = a.l2capChannel {
            s.add("PSM ")
            s.hex(l.psm, width: 4)
        } else {
            s.add("EA ")
            if let session = a.eaSession { s.decimal(session) } else { s.add("?") }
            if let p = a.protocolName { s.add(text: " (\(safe(p)))") }
        }
        // Fields written as they are decoded, put on the line after the name and flags.
        var fields = TextFields()
        let decoded = a.decode(into: &fields)
        if let name = decoded?.name {
            s.add(" ")
            s.add(text: safe(name))
            if a.hasCommand {
                s.add(" (")
                s.hex(f.command, width: 2)
                s.add(")")
            }
        } else if a.hasCommand {
            s.add(" cmd ")
            s.hex(f.command, width: 2)
        }
        if let seq = f.sequence {
            s.add(" seq ")
            s.decimal(seq)
        }
        if let names = decoded?.flagNames, !names.isEmpty {
            s.add(" flags ")
            s.add(text: names.map(safe).joined(separator: ","))
        } else if let flags = f.flags, decoded == nil || flags != 0 {
            s.add(" flags ")
            s.hex(flags, width: 2)
        }
        if fields.line.count > 0 {
            s.add(" ")
            s.add(fields.line)
        } else if decoded?.name == nil || !f.payload.isEmpty {
            s.add(" len ")
            s.decimal(f.payload.count)
            if !f.payload.isEmpty {
                s.add(": ")
                s.spacedHex(f.payload)
            }
        }
        if let p = a.pairing {
            s.add(" ← #")
            s.decimal(p.requestRecord)
            s.add(" in ")
            s.milliseconds(p.latencyMicroseconds)
            s.add(" ms")
        }
        if f.isPartOfMessage, let part = f.fragment { s.add(text: " [\(part.count) frames]") }
        if decoded?.encrypted == true { s.add(" [encrypted]") }
        if !f.checksumOK { s.add(" [bad checksum]") }
    }

    private static func connection(_ c: ConnectionChange) -> String {
        let who = c.info.address.map { " \($0)" } ?? ""
        switch c.change {
        case .opened:
            return
                "Connected\(who) (\(c.info.transport.rawValue), we are \(c.info.role.rawValue)) handle \(Hex.value(c.info.key.handle, width: 4))"
        case .closed:
            let opened = c.info.openedRecord.map { ", opened at #\($0)" } ?? ""
            return "Disconnected\(who): \(c.code?.name ?? "unknown reason")\(opened)"
        case .inferred:
            return
                "Connection \(Hex.value(c.info.key.handle, width: 4)) (\(c.info.transport.rawValue)) was open before the capture began"
        case .failed:
            return "Connection to\(who) failed: \(c.code?.name ?? "unknown status")"
        case .cancelled:
            return "Connection attempt\(who.isEmpty ? "" : " to" + who) cancelled by the host"
        }
    }

    private static func label(_ uuid: BluetoothUUID?) -> String {
        var s = TextLine()
        label(uuid, &s)
        return s.string
    }

    private static func label(_ uuid: BluetoothUUID?, _ s: inout TextLine) {
        guard let uuid else { return }
        s.add(" (")
        if let name = GATTNames.name(uuid) {
            s.add(text: name)
        } else if case .bit16(let v) = uuid {
            s.hexDigits(v, width: 4)
        } else {
            s.add(text: uuid.description)
        }
        s.add(")")
    }

    private static func fields(_ fields: [(String, FieldValue)]) -> String {
        var s = ""
        for (k, v) in fields {
            s += " \(k)="
            switch v {
            case .int(let i): s += String(i)
            case .hex(let i, let digits): s += Hex.value(i, width: digits)
            // Quoted when it has spaces or quotes, its own quotes escaped: `title="Say \"Hi\""`.
            case .string(let t):
                s +=
                    t.contains(" ") || t.contains("\"")
                    ? "\"\(safe(t).replacingOccurrences(of: "\"", with: "\\\""))\"" : safe(t)
            case .bool(let b): s += b ? "yes" : "no"
            case .bytes(let b): s += Hex.string(b)
            case .decimal(let units, let scale): s += FieldValue.decimalText(units, scale: scale)
            }
        }
        return s
    }

    private static func safe(_ s: String) -> String { TerminalText.safe(s) }

    /// A profile message by the heading its descriptor makes (`Start accept`, an AT line as sent),
    /// then the fields the heading does not say.
    private static func profile(_ m: ProfileMessage) -> String {
        let heading = m.profile.descriptor.heading(m)
        return safe(heading.text) + fields(m.fields.filter { !heading.said.contains($0.0) })
    }
}
