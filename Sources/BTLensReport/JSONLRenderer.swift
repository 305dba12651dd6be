import BTLensCore
import BTLensDissect

/// One JSON object per line per event (the JSONL contract: docs/jsonl.md).
/// One writer serves every event, so its storage and its cached date prefix are reused.
public final class JSONLRenderer {
    public let verbose: Bool
    /// Unchecked (these four): the renderer is used by one thread, a line at a time, and `write` never
    /// re-enters it, so no two accesses overlap; a runtime check per field written is saved
    /// (scripts/benchmark's JSONL timeline figure).
    @exclusivity(unchecked) private var w = JSONWriter()
    /// UUIDs as text and their SIG names, as JSON strings: a capture has few, and each is written on many lines.
    @exclusivity(unchecked) private var uuids: [BluetoothUUID: UUIDText] = [:]
    @exclusivity(unchecked) private var recentUUIDs: [(uuid: BluetoothUUID, text: UUIDText)] = []
    /// ATT opcode names as JSON strings, by opcode, once each is first written.
    @exclusivity(unchecked) private var opcodeNames = [[UInt8]?](repeating: nil, count: 256)
    /// The dissector and message names of the last frames, by command byte, encoded once: a
    /// capture's frames repeat a few names, and a name found here is copied, not escaped again.
    /// Kept apart, the texts and their JSON forms are read where they are, not copied out.
    @exclusivity(unchecked) private var frameNameTexts = [String?](repeating: nil, count: 257)
    @exclusivity(unchecked) private var frameNameJSON = [[UInt8]](repeating: [], count: 257)

    private struct UUIDText {
        var text: [UInt8]
        var name: [UInt8]?
    }

    public init(verbose: Bool = false) { self.verbose = verbose }

    /// The event's line, or nil when it is lower-layer detail and the renderer is not verbose.
    public func render(_ e: Event) -> [UInt8]? {
        guard write(e) else { return nil }
        return w.bytes
    }

    /// The event's line appended to `sink`, without a copy of its own.
    public func render(_ e: Event, into sink: OutputSink) {
        guard write(e) else { return }
        w.withBytes { sink.write($0) }
    }

    /// The event's line in the writer; false when the event is not shown. One function per kind of
    /// event, inlined here so that the switch costs what one long function did.
    private func write(_ e: Event) -> Bool {
        guard e.isTop || verbose else { return false }
        w.reset()
        w.beginObject()
        switch e.body {
        case .frame(let a): frame(a, e)
        case .diagnostic(let d): diagnostic(d, e)
        case .note(let category, let text):
            head(&w, "note", e)
            w.field("category", category)
            w.field("text", text)
        case .hciCommand(let c):
            head(&w, "hci.command", e)
            w.field("opcode", c.opcode.rawValue)
            w.field("name", c.opcode.name)
            for (k, v) in c.fields { w.field(named: k, v) }
        case .hciEvent(let h):
            head(&w, "hci.event", e)
            w.field("code", h.code.rawValue)
            if let s = h.subevent { w.field("subevent", s.rawValue) }
            w.field("name", h.name)
            for (k, v) in h.fields { w.field(named: k, v) }
        case .connection(let c): connectionChange(c, e)
        case .acl(let a):
            head(&w, "acl", e)
            connection(&w, e)
            w.field("boundary", a.boundary.rawValue)
            w.field("length", a.length)
        case .l2cap(let l): l2cap(l, e)
        case .l2capSignaling(let c): l2capSignaling(c, e)
        case .smp(let p): smp(p, e)
        case .profile(let m): profile(m, e)
        case .log(let l):
            // A log line is no record of the capture: no `record`, `direction` or `connection`.
            w.field("type", "log")
            w.key("time")
            w.time(e.timestamp)
            for (k, v) in l.fields { w.field(named: k, v) }
        case .logAlignment(let a):
            w.field("type", "log.alignment")
            w.key("time")
            w.time(e.timestamp)
            for (k, v) in a.fields { w.field(named: k, v) }
        case .rfcomm(let f): rfcomm(f, e)
        case .sdp(let info): sdp(info, e)
        case .iap2(let p): iap2(p, e)
        case .iap2Control(let c): iap2Control(c, e)
        case .iap2Identification(let i):
            head(&w, "iap2.identification", e)
            connection(&w, e)
            w.identification(i)
        case .att(let a): att(a, e)
        case .gattValue(let g): gattValue(g, e)
        case .undecoded(let u): undecoded(u, e)
        }
        w.endObject()
        w.newline()
        return true
    }

    @inline(__always) private func frame(_ a: FrameInfo, _ e: Event) {
        head(&w, a.isA5 ? "a5" : "message", e)
        w.key("transport")
        switch a.transport {
        case .att: w.string(literal: "att")
        case .iap2: w.string(literal: "iap2")
        case .rfcomm: w.string(literal: "rfcomm")
        case .l2cap: w.string(literal: "l2cap")
        }
        connection(&w, e)
        if let h = a.attHandle { w.field("att_handle", h) }
        if let u = a.uuid {
            w.key("uuid")
            w.string(encoded: recentUUIDs[recentUUID(u)].text.text)
        }
        if let s = a.eaSession { w.field("ea_session", s) }
        if let p = a.protocolName { w.field("protocol", p) }
        if let c = a.rfcommChannel { w.field("rfcomm_channel", c) }
        if let l = a.l2capChannel {
            w.field("psm", l.psm)
            w.field("cid", l.cid)
        }
        if !a.isA5 { w.field("framing", a.framing ?? "value") }
        // The frame's fields are read in place: a copy of the frame would count a reference to its payload.
        if a.hasCommand { w.field("command", a.frame.command) }
        if let s = a.frame.sequence { w.field("sequence", s) }
        if let flags = a.frame.flags { w.field("flags", flags) }
        w.key("payload")
        w.hex(a.frame.payload)
        if a.frame.checksum != nil { w.field("checksum_ok", a.frame.checksumOK) }
        if let v = a.frame.version { w.field("version", v) }
        if let c = a.frame.checksum { w.field("checksum", c) }
        if a.frame.isPartOfMessage, let part = a.frame.fragment { w.field("fragments", part.count) }
        decoded(&w, a)
    }

    @inline(__always) private func diagnostic(_ d: Diagnostic, _ e: Event) {
        w.field("type", "diagnostic")
        w.field("id", d.id)
        w.field("severity", d.severity.name)
        w.field("record", e.record)
        w.key("time")
        w.time(e.timestamp)
        direction(&w, e, always: true)
        w.field("message", d.message)
        connection(&w, e)
        if let o = d.packetOffset { w.field("packet_offset", o) }
        for (k, v) in d.fields { w.field(named: k, v) }
    }

    @inline(__always) private func connectionChange(_ c: ConnectionChange, _ e: Event) {
        head(&w, "connection", e)
        w.field("change", c.change.rawValue)
        w.field("connection", c.info.key.handle)
        w.field("controller", c.info.key.index)
        if let a = c.info.address { w.field("address", a.description) }
        w.field("transport", c.info.transport.rawValue)
        w.field("role", c.info.role.rawValue)
        w.field("inferred", c.info.inferred)
        if let code = c.code { w.field(c.change == .closed ? "reason" : "status", code.name) }
        if let o = c.info.openedRecord { w.field("opened_record", o) }
    }

    @inline(__always) private func l2cap(_ l: L2CAPInfo, _ e: Event) {
        head(&w, "l2cap", e)
        connection(&w, e)
        w.field("cid", l.cid)
        w.field("length", l.length)
        w.field("first_record", l.firstRecord)
        if l.truncated { w.field("truncated", true) }
    }

    @inline(__always) private func l2capSignaling(_ c: L2CAPSignalingInfo, _ e: Event) {
        head(&w, "l2cap.signaling", e)
        connection(&w, e)
        w.field("code", c.code.rawValue)
        w.field("name", c.code.name)
        w.field("identifier", c.identifier)
        for (k, v) in c.fields { w.field(named: k, v) }
    }

    private func smp(_ p: SMPInfo, _ e: Event) {
        head(&w, "smp", e)
        connection(&w, e)
        w.field("code", p.code)
        w.field(named: "name", p.name)
        for (k, v) in p.fields { w.field(named: k, v) }
    }

    private func profile(_ m: ProfileMessage, _ e: Event) {
        // A profile's type is its descriptor's, named at run time.
        w.field("type", m.profile.descriptor.type)
        place(&w, e)
        connection(&w, e)
        w.field(named: "name", m.name)
        for (k, v) in m.fields { w.field(named: k, v) }
    }

    @inline(__always) private func rfcomm(_ f: RFCOMMInfo, _ e: Event) {
        head(&w, "rfcomm", e)
        connection(&w, e)
        w.field("dlci", f.dlci)
        w.field("frame", f.frame.name)
        w.field("poll_final", f.pollFinal)
        if let c = f.credits { w.field("credits", c) }
        w.field("length", f.length)
        if let m = f.mux { w.field("mux", m) }
        for (k, v) in f.fields { w.field(named: k, v) }
    }

    @inline(__always) private func sdp(_ info: SDPInfo, _ e: Event) {
        head(&w, "sdp", e)
        connection(&w, e)
        w.field("pdu", info.pdu)
        w.field("transaction", info.transaction)
        for (k, v) in info.fields { w.field(named: k, v) }
        w.key("services")
        w.beginArray()
        for s in info.services {
            w.beginObject()
            if let n = s.name { w.field("name", n) }
            w.key("classes")
            w.beginArray()
            for c in s.classes { w.string(c) }
            w.endArray()
            if let ch = s.rfcommChannel { w.field("rfcomm_channel", ch) }
            w.field("iap2", s.isIAP2)
            w.endObject()
        }
        w.endArray()
    }

    @inline(__always) private func iap2(_ p: IAP2PacketInfo, _ e: Event) {
        head(&w, "iap2", e)
        connection(&w, e)
        w.field("kind", p.kind.name)
        if let v = p.psn { w.field("psn", v) }
        if let v = p.pan { w.field("pan", v) }
        if let v = p.session { w.field("session", v) }
        if let v = p.sessionType { w.field("session_type", v) }
        w.field("payload_length", p.payloadLength)
        if let d = p.detail { w.field("detail", d) }
    }

    @inline(__always) private func iap2Control(_ c: IAP2ControlInfo, _ e: Event) {
        head(&w, "iap2.control", e)
        connection(&w, e)
        w.field("message_id", c.id)
        w.field("name", c.name)
        for (k, v) in c.fields { w.field(named: k, v) }
    }

    @inline(__always) private func att(_ a: ATTInfo, _ e: Event) {
        head(&w, "att", e)
        connection(&w, e)
        w.field("opcode", a.opcode.rawValue)
        opcodeName(&w, a.opcode)
        if let h = a.handle { w.field("att_handle", h) }
        uuid(&w, a.uuid)
        if let v = a.value {
            w.key("value")
            w.hex(v)
        }
        if a.truncated { w.field("truncated", true) }
        for (k, v) in a.fields { w.field(named: k, v) }
    }

    @inline(__always) private func gattValue(_ g: GATTValue, _ e: Event) {
        head(&w, Self.type(g.kind), e)
        connection(&w, e)
        w.field("att_handle", g.handle)
        uuid(&w, g.uuid)
        w.key("value")
        w.hex(g.value)
        if let t = g.text { w.field("text", t) }
        w.field("first_record", g.firstRecord)
    }

    @inline(__always) private func undecoded(_ u: UndecodedInfo, _ e: Event) {
        head(&w, "undecoded", e)
        connection(&w, e)
        w.field("what", u.what)
        w.field("length", u.length)
        w.key("bytes")
        w.hex(u.bytes)
        w.field("bytes_cut", u.bytesCut)
    }

    /// What the bound dissector said: names, fields, pairing.
    private func decoded(_ w: inout JSONWriter, _ a: FrameInfo) {
        guard let name = a.dissector, a.isDecoded else { return }
        w.key("dissector")
        frameName(&w, name, slot: 256)
        if let n = a.messageName {
            w.key("command_name")
            frameName(&w, n, slot: Int(a.frame.command & 0xff))
        }
        if let k = a.messageKind {
            w.key("kind")
            switch k {
            case .request: w.string(literal: "request")
            case .response: w.string(literal: "response")
            case .event: w.string(literal: "event")
            }
        }
        w.key("fields")
        // Written as they are decoded: no values built for a line.
        w.beginObject()
        let decoded = a.decode(into: &w)
        w.endObject()
        let d = decoded ?? DecodedMessage()
        w.key("flags_names")
        w.beginArray()
        for n in d.flagNames { w.string(n) }
        w.endArray()
        if let p = a.pairing {
            w.field("response_to", p.requestRecord)
            w.key("latency_ms")
            w.milliseconds(microseconds: p.latencyMicroseconds)
        }
    }

    @inline(__always) private func head(_ w: inout JSONWriter, _ type: StaticString, _ e: Event) {
        w.key("type")
        w.string(literal: type)
        place(&w, e)
    }

    /// What follows an event's type: its record, time and direction.
    @inline(__always) private func place(_ w: inout JSONWriter, _ e: Event) {
        w.field("record", e.record)
        w.key("time")
        w.time(e.timestamp)
        direction(&w, e, always: false)
    }

    /// `gatt.` and the kind's name.
    private static func type(_ kind: GATTValue.Kind) -> StaticString {
        switch kind {
        case .longRead: return "gatt.long_read"
        case .longWrite: return "gatt.long_write"
        case .longWriteCancelled: return "gatt.long_write_cancelled"
        }
    }

    @inline(__always) private func direction(_ w: inout JSONWriter, _ e: Event, always: Bool) {
        if let d = e.direction {
            w.key("direction")
            w.string(literal: d == .sent ? "sent" : "received")
        } else if always {
            w.key("direction")
            w.null()
        }
    }

    @inline(__always) private func connection(_ w: inout JSONWriter, _ e: Event) {
        if let c = e.connection { w.field("connection", c) }
    }

    private func uuid(_ w: inout JSONWriter, _ u: BluetoothUUID?) {
        guard let u else { return }
        let i = recentUUID(u)
        w.key("uuid")
        w.string(encoded: recentUUIDs[i].text.text)
        if let name = recentUUIDs[i].text.name {
            w.key("uuid_name")
            w.string(encoded: name)
        }
    }

    /// Where `u`'s texts are among the recent ones, put there if they were not. Lines alternate
    /// between a few streams' UUIDs: the last ones are checked before the table, and are written
    /// from where they are kept, not copied out (each copy would count a reference).
    private func recentUUID(_ u: BluetoothUUID) -> Int {
        if let hit = recentUUIDs.firstIndex(where: { $0.uuid == u }) { return hit }
        let text: UUIDText
        if let known = uuids[u] {
            text = known
        } else {
            text = UUIDText(text: JSONWriter.encode(u.description), name: GATTNames.name(u).map(JSONWriter.encode))
            if uuids.count < 4096 { uuids[u] = text }
        }
        if recentUUIDs.count == 4 { recentUUIDs.removeFirst() }
        recentUUIDs.append((u, text))
        return recentUUIDs.count - 1
    }

    /// A dissector's or message's name as a JSON string, from `slot` when it holds the same name
    /// (a comparison that is one test when the two share their storage, as names from one
    /// definition do).
    private func frameName(_ w: inout JSONWriter, _ name: String, slot: Int) {
        if frameNameTexts[slot] != name {
            frameNameTexts[slot] = name
            frameNameJSON[slot] = JSONWriter.encode(name)
        }
        w.string(encoded: frameNameJSON[slot])
    }

    /// An ATT opcode's name as a JSON string, encoded the first time it is written.
    private func opcodeName(_ w: inout JSONWriter, _ opcode: ATTOpcode) {
        let i = Int(opcode.rawValue)
        if opcodeNames[i] == nil { opcodeNames[i] = JSONWriter.encode(opcode.name) }
        w.key("name")
        w.string(encoded: opcodeNames[i] ?? [])
    }
}
