import BTLensCore
import BTLensDissect

/// Replaces what users should not post publicly with stable placeholders, everywhere in a report:
/// Bluetooth addresses (as text, and as bytes in either order inside hex dumps), accessory serial
/// numbers, and iAP2 Wi-Fi credentials. The same value always gets the same placeholder.
final class Redactor {
    private var addresses: [String: String] = [:]
    private var addressBytes: [(hex: String, placeholder: String)] = []
    private var serials: [(serial: String, placeholder: String)] = []

    init(_ report: Report) {
        for c in report.connections { if let a = c.address { _ = address(a) } }
        for a in report.advertisers { _ = address(a.address) }
        // Every address anywhere first, so hex dumps earlier in the report than an address's text are caught too.
        let texts = report.captureInformation + report.services.map(\.server)
            + report.rows.flatMap { [$0.text] + $0.fields.map(\.1) } + report.diagnostics.map(\.firstMessage)
        for t in texts where t.utf8.count >= 17 {
            for m in t.matches(of: pattern) { _ = address(String(t[m.range])) }
        }
        for (i, a) in report.accessories.enumerated() where !a.serial.isEmpty {
            serials.append((a.serial, "[serial \(i + 1)]"))
        }
    }

    func apply(_ r: inout Report) {
        r.file = text(r.file)
        r.captureInformation = r.captureInformation.map(text)
        for i in r.connections.indices { r.connections[i].address = r.connections[i].address.map(text) }
        for i in r.advertisers.indices { r.advertisers[i].address = text(r.advertisers[i].address) }
        for i in r.accessories.indices {
            r.accessories[i].serial = text(r.accessories[i].serial)
            r.accessories[i].name = text(r.accessories[i].name)
        }
        for i in r.services.indices { r.services[i].server = text(r.services[i].server) }
        for i in r.rows.indices {
            if r.rows[i].layer == "IAP2", r.rows[i].text.contains("WiFi") {
                // Wi-Fi information messages carry the SSID and passphrase as parameters.
                r.rows[i].text = (r.rows[i].text.components(separatedBy: ")").first ?? "") + ") [Wi-Fi parameters redacted]"
                r.rows[i].fields = []
                r.rows[i].hex = nil
            }
            r.rows[i].text = text(r.rows[i].text)
            r.rows[i].fields = r.rows[i].fields.map { ($0.0, text($0.1)) }
            r.rows[i].hex = r.rows[i].hex.map(text)
        }
        for i in r.messages.indices {
            r.messages[i].detail = text(r.messages[i].detail)
            r.messages[i].label = text(r.messages[i].label)
        }
        for i in r.diagnostics.indices { r.diagnostics[i].firstMessage = text(r.diagnostics[i].firstMessage) }
        r.redacted = true
    }

    /// Any `AA:BB:CC:DD:EE:FF`, any known serial, and known addresses as hex bytes in `s`.
    func text(_ s: String) -> String {
        var out = s
        for (bytes, placeholder) in addressBytes { out = out.replacingOccurrences(of: bytes, with: placeholder) }
        for (serial, placeholder) in serials { out = out.replacingOccurrences(of: serial, with: placeholder) }
        guard out.utf8.count >= 17 else { return out }
        var result = ""
        var rest = Substring(out)
        while let m = rest.firstMatch(of: pattern) {
            result += rest[..<m.range.lowerBound]
            result += address(String(rest[m.range]))
            rest = rest[m.range.upperBound...]
        }
        return result + rest
    }


    private let pattern = /[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}/

    private func address(_ a: String) -> String {
        let key = a.uppercased()
        if let p = addresses[key] { return p }
        let p = "[address \(addresses.count + 1)]"
        addresses[key] = p
        let octets = key.lowercased().split(separator: ":")
        // Hex dumps spaced (`aa bb …`) or not (`aabb…`), in display and wire (reversed) order.
        for order in [octets, octets.reversed()] {
            addressBytes.append((order.joined(separator: " "), p))
            addressBytes.append((order.joined(), p))
        }
        return p
    }
}
