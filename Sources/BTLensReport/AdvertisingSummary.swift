import BTLensCore
import BTLensDissect

/// Devices seen advertising, in a few words: one wording for `stats`, `timeline --summary` and reports.
enum AdvertisingSummary {
    /// Devices listed in text; JSON lists all the table keeps.
    static let textLimit = 20

    /// `AA:BB:CC:11:22:33 "Name": 6 reports #309–#481, RSSI -79…-62 dBm, services 6666`.
    static func describe(_ a: Report.Advertiser) -> String {
        let name = a.name.map { " \"\(TerminalText.safe($0))\"" } ?? ""
        let services = a.services.isEmpty ? "" : ", services " + a.services.joined(separator: " ")
        return
            "\(a.address)\(name): \(a.reports) report\(a.reports == 1 ? "" : "s") #\(a.firstRecord)–#\(a.lastRecord), RSSI \(rssi(a)) dBm\(services)"
    }

    static func rssi(_ a: Report.Advertiser) -> String {
        a.rssi.lowerBound == a.rssi.upperBound ? "\(a.rssi.lowerBound)" : "\(a.rssi.lowerBound)…\(a.rssi.upperBound)"
    }

    static func text(_ t: AdvertisingTable) -> [String] {
        guard !t.devices.isEmpty else { return [] }
        let all = t.sorted.map(Report.Advertiser.init)
        var lines = ["Advertisers: \(t.devices.count)" + (Report.AdvertisersNotListed(t).map { " " + text($0) } ?? "")]
        lines += all.prefix(textLimit).map { "  " + describe($0) }
        if all.count > textLimit { lines.append("  … \(all.count - textLimit) more (--format json lists them)") }
        return lines
    }

    /// `(and 604 more devices past 256, with 1210 reports, not listed)`.
    static func text(_ n: Report.AdvertisersNotListed) -> String {
        let devices = (n.atLeast ? "at least " : "") + Plural.of(n.devices, "more device")
        return
            "(and \(devices) past \(AdvertisingTable.deviceLimit), with \(Plural.of(n.reports, "report")), not listed)"
    }

    /// The devices past the table's bound, when there were any: counted, not listed.
    static func json(_ w: inout JSONWriter, _ n: Report.AdvertisersNotListed?) {
        guard let n else { return }
        w.field("advertisers_not_listed", n.devices)
        if n.atLeast { w.field("advertisers_not_listed_at_least", true) }
        w.field("advertiser_reports_not_listed", n.reports)
    }

    /// What a report's summary, showing its first `shown` advertisers, leaves out; nil when nothing.
    static func more(_ r: Report, shown: Int) -> String? {
        let hidden = max(0, r.advertisers.count - shown)
        guard hidden > 0 || r.advertisersNotListed != nil else { return nil }
        let past = r.advertisersNotListed.map { " " + text($0) } ?? ""
        return "… \(Plural.of(hidden, "more device")) advertising, in the JSON report\(past)"
    }

    static func json(_ w: inout JSONWriter, _ advertisers: [Report.Advertiser]) {
        w.beginArray()
        for a in advertisers {
            w.beginObject()
            w.field("address", a.address)
            if let n = a.name { w.field("name", n) }
            w.field("reports", a.reports)
            w.field("first_record", a.firstRecord)
            w.field("last_record", a.lastRecord)
            w.field("rssi_min", a.rssi.lowerBound)
            w.field("rssi_max", a.rssi.upperBound)
            w.key("service_uuids")
            w.beginArray()
            for s in a.services { w.string(s) }
            w.endArray()
            w.endObject()
        }
        w.endArray()
    }
}

extension Report.Advertiser {
    init(_ d: AdvertisingTable.Device) {
        self.init(
            address: d.address.description, name: d.name, reports: d.reports, firstRecord: d.first.record,
            lastRecord: d.last.record, rssi: d.rssi, services: d.uuids.map(\.description))
    }
}
