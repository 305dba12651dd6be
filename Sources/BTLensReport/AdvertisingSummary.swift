import BTLensCore
import BTLensDissect

/// Devices seen advertising, in a few words: for `stats` and `timeline --summary`.
enum AdvertisingSummary {
    /// Devices listed in text; JSON lists all the table keeps.
    static let textLimit = 20

    static func line(_ d: AdvertisingTable.Device) -> String {
        let name = d.name.map { " \"\(TerminalText.safe($0))\"" } ?? ""
        let uuids = d.uuids.isEmpty ? "" : ", services " + d.uuids.map(\.description).joined(separator: " ")
        let rssi = d.rssi.lowerBound == d.rssi.upperBound ? "\(d.rssi.lowerBound)" : "\(d.rssi.lowerBound)…\(d.rssi.upperBound)"
        return "  \(d.address)\(name): \(d.reports) report\(d.reports == 1 ? "" : "s") #\(d.first.record)–#\(d.last.record), RSSI \(rssi) dBm\(uuids)"
    }

    static func text(_ t: AdvertisingTable) -> [String] {
        guard !t.devices.isEmpty else { return [] }
        let sorted = t.sorted
        var lines = ["Advertisers: \(t.devices.count)" + (t.uncounted > 0 ? " (and \(t.uncounted) reports from devices past \(AdvertisingTable.deviceLimit))" : "")]
        lines += sorted.prefix(textLimit).map(line)
        if sorted.count > textLimit { lines.append("  … \(sorted.count - textLimit) more (--format json lists them)") }
        return lines
    }

    static func json(_ w: inout JSONWriter, _ t: AdvertisingTable) {
        w.beginArray()
        for d in t.sorted {
            w.beginObject()
            w.field("address", d.address.description)
            if let n = d.name { w.field("name", n) }
            w.field("reports", d.reports)
            w.field("first_record", d.first.record)
            w.field("last_record", d.last.record)
            w.field("rssi_min", d.rssi.lowerBound)
            w.field("rssi_max", d.rssi.upperBound)
            w.key("service_uuids"); w.beginArray()
            for u in d.uuids { w.string(u.description) }
            w.endArray()
            w.endObject()
        }
        w.endArray()
    }
}
