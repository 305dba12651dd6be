import BTLensCore
import BTLensDissect

/// One JSON object per line per event (the JSONL contract: docs/jsonl.md).
/// One writer serves every event, so its storage and its cached date prefix are reused.
public final class JSONLRenderer {
    public let verbose: Bool
    /// In `SingleOwnerCell`s (these six): the renderer is used by one thread, a line at a time, and
    /// `write` never re-enters it, so no two accesses overlap; a runtime check per field written is
    /// saved (scripts/benchmark's JSONL timeline figure).
    private let w = SingleOwnerCell(JSONWriter())
    /// UUIDs as text and their SIG names, as JSON strings: a capture has few, and each is written on many lines.
    private let uuids = SingleOwnerCell<[BluetoothUUID: UUIDText]>([:])
    private let recentUUIDs = SingleOwnerCell<[(uuid: BluetoothUUID, text: UUIDText)]>([])
    /// ATT opcode names as JSON strings, by opcode, once each is first written.
    private let opcodeNames = SingleOwnerCell([[UInt8]?](repeating: nil, count: 256))
    /// The dissector and message names of the last frames, by command byte, encoded once: a
    /// capture's frames repeat a few names, and a name found here is copied, not escaped again.
    /// Kept apart, the texts and their JSON forms are read where they are, not copied out.
    private let frameNameTexts = SingleOwnerCell([String?](repeating: nil, count: 257))
    private let frameNameJSON = SingleOwnerCell([[UInt8]](repeating: [], count: 257))

    private struct UUIDText {
        var text: [UInt8]
        var name: [UInt8]?
    }

    public init(verbose: Bool = false) { self.verbose = verbose }

    /// The event's line, or nil when it is lower-layer detail and the renderer is not verbose.
    public func render(_ e: Event) -> [UInt8]? {
        guard write(e) else { return nil }
        return w.value.bytes
    }

    /// The event's line appended to `sink`, without a copy of its own.
    public func render(_ e: Event, into sink: OutputSink) {
        guard write(e) else { return }
        w.value.withBytes { sink.write($0) }
    }

    /// The event's line in the writer; false when the event is not shown. One function per kind of
    /// event, inlined here so that the switch costs what one long function did.
    private func write(_ e: Event) -> Bool {
        guard e.isTop || verbose else { return false }
        w.value.reset()
        w.value.beginObject()
        switch e.body {
        case .frame(let a): frame(a, e)
        case .diagnostic(let d): diagnostic(d, e)
        case .note(let category, let text):
            head(&w.value, "note", e)
            w.value.field("category", category)
            w.value.field("text", text)
        case .hciCommand(let c):
            head(&w.value, "hci.command", e)
            w.value.field("opcode", c.opcode.rawValue)
            w.value.field("name", c.opcode.name)
            for (k, v) in c.fields { w.value.field(named: k, v) }
        case .hciEvent(let h):
            head(&w.value, "hci.event", e)
            w.value.field("code", h.code.rawValue)
            if let s = h.subevent { w.value.field("subevent", s.rawValue) }
            w.value.field("name", h.name)
            for (k, v) in h.fields { w.value.field(named: k, v) }
        case .hciDebug(let d): controllerDebug(d, e)
        case .connection(let c): connectionChange(c, e)
        case .acl(let a):
            head(&w.value, "acl", e)
            connection(&w.value, e)
            w.value.field("boundary", a.boundary.rawValue)
            w.value.field("length", a.length)
        case .l2cap(let l): l2cap(l, e)
        case .l2capSignaling(let c): l2capSignaling(c, e)
        case .smp(let p): smp(p, e)
        case .profile(let m): profile(m, e)
        case .log(let l):
            // A log line is no record of the capture: no `record`, `direction` or `connection`.
            w.value.field("type", "log")
            w.value.key("time")
            w.value.time(e.timestamp)
            for (k, v) in l.fields { w.value.field(named: k, v) }
        case .logAlignment(let a):
            w.value.field("type", "log.alignment")
            w.value.key("time")
            w.value.time(e.timestamp)
            for (k, v) in a.fields { w.value.field(named: k, v) }
        case .rfcomm(let f): rfcomm(f, e)
        case .sdp(let info): sdp(info, e)
        case .iap2(let p): iap2(p, e)
        case .iap2Control(let c): iap2Control(c, e)
        case .iap2Identification(let i):
            head(&w.value, "iap2.identification", e)
            connection(&w.value, e)
            w.value.identification(i)
        case .att(let a): att(a, e)
        case .gattValue(let g): gattValue(g, e)
        case .undecoded(let u): undecoded(u, e)
        }
        w.value.endObject()
        w.value.newline()
        return true
    }

    @inline(__always) private func frame(_ a: FrameInfo, _ e: Event) {
        head(&w.value, a.isA5 ? "a5" : "message", e)
        w.value.key("transport")
        switch a.transport {
        case .att: w.value.string(literal: "att")
        case .iap2: w.value.string(literal: "iap2")
        case .rfcomm: w.value.string(literal: "rfcomm")
        case .l2cap: w.value.string(literal: "l2cap")
        }
        connection(&w.value, e)
        if let h = a.attHandle { w.value.field("att_handle", h) }
        if let u = a.uuid {
            w.value.key("uuid")
            w.value.string(encoded: recentUUIDs.value[recentUUID(u)].text.text)
        }
        if let s = a.eaSession { w.value.field("ea_session", s) }
        if let p = a.protocolName { w.value.field("protocol", p) }
        if let c = a.rfcommChannel { w.value.field("rfcomm_channel", c) }
        if let l = a.l2capChannel {
            // PSM 0: a channel bound by its CID, no PSM known.
            if l.psm != 0 { w.value.field("psm", l.psm) }
            w.value.field("cid", l.cid)
        }
        if !a.isA5 { w.value.field("framing", a.framing ?? "value") }
        // The frame's fields are read in place: a copy of the frame would count a reference to its payload.
        if a.hasCommand { w.value.field("command", a.frame.command) }
        if let s = a.frame.sequence { w.value.field("sequence", s) }
        if let flags = a.frame.flags { w.value.field("flags", flags) }
        w.value.key("payload")
        w.value.hex(a.frame.payload)
        if a.frame.checksum != nil { w.value.field("checksum_ok", a.frame.checksumOK) }
        if let v = a.frame.version { w.value.field("version", v) }
        if let c = a.frame.checksum { w.value.field("checksum", c) }
        if a.frame.isPartOfMessage, let part = a.frame.fragment { w.value.field("fragments", part.count) }
        decoded(&w.value, a)
    }

    @inline(__always) private func diagnostic(_ d: Diagnostic, _ e: Event) {
        w.value.field("type", "diagnostic")
        w.value.field("id", d.id)
        w.value.field("severity", d.severity.name)
        w.value.field("record", e.record)
        w.value.key("time")
        w.value.time(e.timestamp)
        direction(&w.value, e, always: true)
        w.value.field("message", d.message)
        connection(&w.value, e)
        if let o = d.packetOffset { w.value.field("packet_offset", o) }
        for (k, v) in d.fields { w.value.field(named: k, v) }
    }

    @inline(__always) private func connectionChange(_ c: ConnectionChange, _ e: Event) {
        head(&w.value, "connection", e)
        w.value.field("change", c.change.rawValue)
        w.value.field("connection", c.info.key.handle)
        w.value.field("controller", c.info.key.index)
        if let a = c.info.address { w.value.field("address", a.description) }
        w.value.field("transport", c.info.transport.rawValue)
        w.value.field("role", c.info.role.rawValue)
        w.value.field("inferred", c.info.inferred)
        if let code = c.code { w.value.field(c.change == .closed ? "reason" : "status", code.name) }
        if let o = c.info.openedRecord { w.value.field("opened_record", o) }
    }

    @inline(__always) private func l2cap(_ l: L2CAPInfo, _ e: Event) {
        head(&w.value, "l2cap", e)
        connection(&w.value, e)
        w.value.field("cid", l.cid)
        w.value.field("length", l.length)
        w.value.field("first_record", l.firstRecord)
        if l.truncated { w.value.field("truncated", true) }
    }

    @inline(__always) private func l2capSignaling(_ c: L2CAPSignalingInfo, _ e: Event) {
        head(&w.value, "l2cap.signaling", e)
        connection(&w.value, e)
        w.value.field("code", c.code.rawValue)
        w.value.field("name", c.code.name)
        w.value.field("identifier", c.identifier)
        for (k, v) in c.fields { w.value.field(named: k, v) }
    }

    private func smp(_ p: SMPInfo, _ e: Event) {
        head(&w.value, "smp", e)
        connection(&w.value, e)
        w.value.field("code", p.code)
        w.value.field(named: "name", p.name)
        for (k, v) in p.fields { w.value.field(named: k, v) }
    }

    private func profile(_ m: ProfileMessage, _ e: Event) {
        // A profile's type is its descriptor's, named at run time.
        w.value.field("type", m.profile.descriptor.type)
        place(&w.value, e)
        connection(&w.value, e)
        w.value.field(named: "name", m.name)
        for (k, v) in m.fields { w.value.field(named: k, v) }
    }

    @inline(__always) private func rfcomm(_ f: RFCOMMInfo, _ e: Event) {
        head(&w.value, "rfcomm", e)
        connection(&w.value, e)
        w.value.field("dlci", f.dlci)
        w.value.field("frame", f.frame.name)
        w.value.field("poll_final", f.pollFinal)
        if let c = f.credits { w.value.field("credits", c) }
        w.value.field("length", f.length)
        if let m = f.mux { w.value.field("mux", m) }
        for (k, v) in f.fields { w.value.field(named: k, v) }
    }

    @inline(__always) private func sdp(_ info: SDPInfo, _ e: Event) {
        head(&w.value, "sdp", e)
        connection(&w.value, e)
        w.value.field("pdu", info.pdu)
        w.value.field("transaction", info.transaction)
        for (k, v) in info.fields { w.value.field(named: k, v) }
        w.value.key("services")
        w.value.beginArray()
        for s in info.services {
            w.value.beginObject()
            if let n = s.name { w.value.field("name", n) }
            w.value.key("classes")
            w.value.beginArray()
            for c in s.classes { w.value.string(c) }
            w.value.endArray()
            if let ch = s.rfcommChannel { w.value.field("rfcomm_channel", ch) }
            w.value.field("iap2", s.isIAP2)
            w.value.endObject()
        }
        w.value.endArray()
    }

    @inline(__always) private func iap2(_ p: IAP2PacketInfo, _ e: Event) {
        head(&w.value, "iap2", e)
        connection(&w.value, e)
        w.value.field("kind", p.kind.name)
        if let v = p.psn { w.value.field("psn", v) }
        if let v = p.pan { w.value.field("pan", v) }
        if let v = p.session { w.value.field("session", v) }
        if let v = p.sessionType { w.value.field("session_type", v) }
        w.value.field("payload_length", p.payloadLength)
        if let d = p.detail { w.value.field("detail", d) }
    }

    @inline(__always) private func iap2Control(_ c: IAP2ControlInfo, _ e: Event) {
        head(&w.value, "iap2.control", e)
        connection(&w.value, e)
        w.value.field("message_id", c.id)
        w.value.field("name", c.name)
        for (k, v) in c.fields { w.value.field(named: k, v) }
    }

    @inline(__always) private func att(_ a: ATTInfo, _ e: Event) {
        head(&w.value, "att", e)
        connection(&w.value, e)
        w.value.field("opcode", a.opcode.rawValue)
        opcodeName(&w.value, a.opcode)
        if let h = a.handle { w.value.field("att_handle", h) }
        uuid(&w.value, a.uuid)
        if let v = a.value {
            w.value.key("value")
            w.value.hex(v)
        }
        if a.truncated { w.value.field("truncated", true) }
        for (k, v) in a.fields { w.value.field(named: k, v) }
    }

    @inline(__always) private func gattValue(_ g: GATTValue, _ e: Event) {
        head(&w.value, Self.type(g.kind), e)
        connection(&w.value, e)
        w.value.field("att_handle", g.handle)
        uuid(&w.value, g.uuid)
        w.value.key("value")
        w.value.hex(g.value)
        if let t = g.text { w.value.field("text", t) }
        w.value.field("first_record", g.firstRecord)
    }

    @inline(__always) private func undecoded(_ u: UndecodedInfo, _ e: Event) {
        head(&w.value, "undecoded", e)
        connection(&w.value, e)
        w.value.field("what", u.what)
        w.value.field("length", u.length)
        w.value.key("bytes")
        w.value.hex(u.bytes)
        w.value.field("bytes_cut", u.bytesCut)
    }

    private func controllerDebug(_ d: ControllerDebug, _ e: Event) {
        head(&w.value, "hci.debug", e)
        w.value.field("vendor", d.vendor.rawValue)
        w.value.field("kind", d.kind.rawValue)
        w.value.field("acl_header", d.header)
        if let s = d.sequence { w.value.field("sequence", s) }
        if let n = d.dumpSize { w.value.field("dump_size", n) }
        w.value.field("length", d.length)
        w.value.key("bytes")
        w.value.hex(d.bytes)
        w.value.field("bytes_cut", d.bytesCut)
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
        if d.encrypted { w.field("encrypted", true) }
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
        w.string(encoded: recentUUIDs.value[i].text.text)
        if let name = recentUUIDs.value[i].text.name {
            w.key("uuid_name")
            w.string(encoded: name)
        }
    }

    /// Where `u`'s texts are among the recent ones, put there if they were not. Lines alternate
    /// between a few streams' UUIDs: the last ones are checked before the table, and are written
    /// from where they are kept, not copied out (each copy would count a reference).
    private func recentUUID(_ u: BluetoothUUID) -> Int {
        if let hit = recentUUIDs.value.firstIndex(where: { $0.uuid == u }) { return hit }
        let text: UUIDText
        if let known = uuids.value[u] {
            text = known
        } else {
            text = UUIDText(text: JSONWriter.encode(u.description), name: GATTNames.name(u).map(JSONWriter.encode))
            if uuids.value.count < 4096 { uuids.value[u] = text }
        }
        if recentUUIDs.value.count == 4 { recentUUIDs.value.removeFirst() }
        recentUUIDs.value.append((u, text))
        return recentUUIDs.value.count - 1
    }

    /// A dissector's or message's name as a JSON string, from `slot` when it holds the same name
    /// (a comparison that is one test when the two share their storage, as names from one
    /// definition do).
    private func frameName(_ w: inout JSONWriter, _ name: String, slot: Int) {
        if frameNameTexts.value[slot] != name {
            frameNameTexts.value[slot] = name
            frameNameJSON.value[slot] = JSONWriter.encode(name)
        }
        w.string(encoded: frameNameJSON.value[slot])
    }

    /// An ATT opcode's name as a JSON string, encoded the first time it is written.
    private func opcodeName(_ w: inout JSONWriter, _ opcode: ATTOpcode) {
        let i = Int(opcode.rawValue)
        if opcodeNames.value[i] == nil { opcodeNames.value[i] = JSONWriter.encode(opcode.name) }
        w.key("name")
        w.string(encoded: opcodeNames.value[i] ?? [])
    }
}
