import BTLensCore
import BTLensDissect

/// A connection's life in a few words: for `stats`, `timeline --summary` and reports.
public enum ConnectionSummary {
    static func phy(_ p: UInt8) -> String { [1: "1M", 2: "2M", 3: "Coded"][p] ?? "PHY \(p)" }

    /// The one-line heading: handle, peer, transport, role, opened → closed (reason).
    public static func heading(_ c: ConnectionInfo) -> String {
        let addr = c.address?.description ?? "address unknown"
        let opened = c.openedRecord.map { "#\($0)" } ?? (c.inferred ? "before the capture" : "?")
        let closed = c.closedRecord.map { "#\($0)" } ?? "still open"
        let reason =
            c.replaced
            ? " (replaced: its handle connected again, no disconnection seen)"
            : c.disconnectReason.map { " (\($0.name))" } ?? ""
        var duration = ""
        if let a = c.openedTime, let b = c.closedTime { duration = ", \(b.offset(from: a)) s" }
        return
            "\(Hex.value(c.key.handle, width: 4)) \(addr) \(c.transport.rawValue) \(c.role.rawValue): \(opened) → \(closed)\(reason)\(duration)"
    }

    /// The steps of its life that the capture showed, one short clause each.
    public static func steps(_ c: ConnectionInfo) -> [String] {
        let l = c.lifecycle
        // Each step's record, and its time since the connection opened when the capture has it.
        func at(_ s: Lifecycle.Step) -> String {
            "#\(s.record)" + (c.openedTime.map { " +\(s.time.offset(from: $0)) s" } ?? "")
        }
        var link: [String] = []
        if let p = l.parameters {
            let interval = MessageValue.number(Double(p.intervalMicroseconds) / 1000)
            link.append(
                "interval \(interval) ms, latency \(p.latency), timeout \(p.timeoutMilliseconds) ms"
                    + (l.parameterUpdates > 0
                        ? " (\(l.parameterUpdates) update\(l.parameterUpdates == 1 ? "" : "s"))" : ""))
        }
        if let p = l.phy { link.append("PHY \(phy(p.tx))/\(phy(p.rx))") }
        if let d = l.dataLength { link.append("data length \(d.tx)/\(d.rx)") }
        var security: [String] = []
        if let e = l.encryption {
            security.append(
                e.status.isSuccess
                    ? "encrypted at \(at(e.step))" : "encryption failed at \(at(e.step)): \(e.status.name)")
        }
        if let p = l.pairingStarted {
            security.append("pairing at \(at(p))" + (l.pairingMethod.map { " (\($0))" } ?? ""))
        }
        if let p = l.pairingFailure { security.append("pairing failed at \(at(p.step)): \(p.reason.name)") }
        var gatt: [String] = []
        if let f = l.firstATT { gatt.append("first ATT \(at(f))") }
        if let m = c.attMTU {
            gatt.append("MTU \(m.value)\(m.isDefault ? " (default, no exchange)" : "")")
        } else if c.inferred && c.transport == .le {
            gatt.append("MTU unknown (no exchange since the capture began)")
        }
        if let d = l.discovery { gatt.append("discovery at \(at(d))") }
        if l.attErrors > 0 { gatt.append("\(l.attErrors) ATT error\(l.attErrors == 1 ? "" : "s")") }
        let audio = l.audioStreams.map { s in
            "audio SEID \(s.seid)\(s.codec.map { " \($0)" } ?? ""): \(s.state) at \(at(s.step))"
                + (s.packets > 0 ? ", \(s.packets) media packets (\(s.bytes) bytes)" : "")
        }
        var lines = [link, security, gatt, audio].filter { !$0.isEmpty }.map { $0.joined(separator: "; ") }
        if !l.subscriptions.isEmpty {
            lines.append(
                "subscribed: "
                    + l.subscriptions.map { s in
                        "\(Hex.value(s.valueHandle, width: 4))\(s.uuid.map { " \($0)" } ?? "") \(s.kind.rawValue) (\(at(s.step)))"
                    }.joined(separator: ", "))
        }
        return lines
    }

    /// Heading and steps, indented for a text listing.
    public static func text(_ c: ConnectionInfo) -> [String] {
        ["  " + heading(c)] + steps(c).map { "         " + $0 }
    }

    /// The connection in `stats --format json`.
    static func json(_ w: inout JSONWriter, _ c: ConnectionInfo) {
        let l = c.lifecycle
        w.beginObject()
        jsonLink(&w, c)
        jsonSubscriptions(&w, l)
        jsonLinkLayer(&w, l)
        jsonSecurity(&w, l)
        if let f = l.firstATT { w.field("first_att_record", f.record) }
        if let d = l.discovery { w.field("discovery_record", d.record) }
        w.field("att_errors", l.attErrors)
        jsonAudioStreams(&w, l)
        w.endObject()
    }

    /// Which link, when it opened and closed, and its ATT_MTU. Unknown values are written as null,
    /// so that every connection has these keys.
    private static func jsonLink(_ w: inout JSONWriter, _ c: ConnectionInfo) {
        w.field("handle", c.key.handle)
        w.field("controller", c.key.index)
        if let a = c.address {
            w.field("address", a.description)
        } else {
            w.key("address")
            w.null()
        }
        w.field("transport", c.transport.rawValue)
        w.field("role", c.role.rawValue)
        if let r = c.openedRecord {
            w.field("opened_record", r)
        } else {
            w.key("opened_record")
            w.null()
        }
        if let r = c.closedRecord {
            w.field("closed_record", r)
        } else {
            w.key("closed_record")
            w.null()
        }
        if let r = c.disconnectReason {
            w.field("disconnect_reason", r.name)
        } else {
            w.key("disconnect_reason")
            w.null()
        }
        w.field("inferred", c.inferred)
        w.field("replaced", c.replaced)
        if let m = c.attMTU {
            w.field("att_mtu", m.value)
        } else {
            w.key("att_mtu")
            w.null()
        }
        w.field("att_mtu_default", c.attMTU?.isDefault ?? false)
    }

    /// The characteristics whose Client Characteristic Configuration descriptor was written.
    private static func jsonSubscriptions(_ w: inout JSONWriter, _ l: Lifecycle) {
        w.key("subscriptions")
        w.beginArray()
        for s in l.subscriptions {
            w.beginObject()
            w.field("handle", s.valueHandle)
            w.field("cccd_handle", s.cccdHandle)
            if let u = s.uuid { w.field("uuid", u.description) }
            w.field("kind", s.kind.rawValue)
            w.field("record", s.step.record)
            w.endObject()
        }
        w.endArray()
    }

    /// The LE link layer's connection parameters, PHY and data length, where they are known.
    private static func jsonLinkLayer(_ w: inout JSONWriter, _ l: Lifecycle) {
        if let p = l.parameters {
            w.key("parameters")
            w.beginObject()
            w.key("interval_ms")
            w.number(Double(p.intervalMicroseconds) / 1000)
            w.field("latency", p.latency)
            w.field("timeout_ms", p.timeoutMilliseconds)
            w.field("updates", l.parameterUpdates)
            w.endObject()
        }
        if let p = l.phy { w.field("phy", "\(phy(p.tx))/\(phy(p.rx))") }
        if let d = l.dataLength {
            w.key("data_length")
            w.beginObject()
            w.field("tx", d.tx)
            w.field("rx", d.rx)
            w.endObject()
        }
    }

    /// Encryption and SMP pairing: when they happened and how they ended.
    private static func jsonSecurity(_ w: inout JSONWriter, _ l: Lifecycle) {
        if let e = l.encryption {
            w.key("encryption")
            w.beginObject()
            w.field("record", e.step.record)
            w.field("status", e.status.name)
            w.endObject()
        }
        w.field("encrypted", l.encrypted)
        if let p = l.pairingStarted { w.field("pairing_record", p.record) }
        if let m = l.pairingMethod { w.field("pairing_method", m) }
        if let p = l.pairingFailure {
            w.key("pairing_failure")
            w.beginObject()
            w.field("record", p.step.record)
            w.field("reason", p.reason.name)
            w.endObject()
        }
    }

    /// The AVDTP stream endpoints configured, with their media counted.
    private static func jsonAudioStreams(_ w: inout JSONWriter, _ l: Lifecycle) {
        guard !l.audioStreams.isEmpty else { return }
        w.key("audio_streams")
        w.beginArray()
        for s in l.audioStreams {
            w.beginObject()
            w.field("seid", s.seid)
            if let c = s.codec { w.field("codec", c) }
            w.field("state", s.state)
            w.field("record", s.step.record)
            w.field("media_packets", s.packets)
            w.field("media_bytes", s.bytes)
            w.endObject()
        }
        w.endArray()
    }
}
