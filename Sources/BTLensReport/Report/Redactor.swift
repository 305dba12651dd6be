import BTLensCore
import BTLensDissect

/// Replaces what users should not post publicly with stable placeholders, everywhere in a report:
/// Bluetooth addresses (as text, and as bytes in either order inside hex), accessory serial
/// numbers (as text and as hex), device names (GAP Device Name, advertised Local Name, remote and
/// local names, iAP2 accessory name, the devices PacketLogger config records list; as text and as
/// hex). It runs on the whole report before any of it is written, so a secret learned late is
/// replaced in the rows before it too. The same value always gets the same placeholder. The input
/// and its app logs are named by their file names only: their folders name the user's machine.
/// (iAP2 Wi-Fi credentials never reach the report: `ReportBuilder` leaves them out of its rows.)
final class Redactor {
    /// What the report says was redacted.
    static let what =
        "Bluetooth addresses, serial numbers, device names and Wi-Fi credentials are placeholders;"
        + " the input is named by its file name only"

    private var addresses: [String: String] = [:]
    /// Addresses, names and serials as bytes, for hex dumps and parameters.
    private var bytes = HexSecrets()
    private var serials: [(serial: String, placeholder: String)] = []
    private var names: [String: String] = [:]
    /// Each name as text and as the terminal-safe text the timeline shows, longest first so
    /// that a name inside a longer one does not break the longer one's replacement.
    private var nameForms: [(form: String, placeholder: String)] = []
    /// The input's path and its file name, and those of the app logs (`--app-log`).
    private let path: (full: String, name: String)
    private var logPaths: [(full: String, name: String)] = []

    /// `deviceNames` and `addresses`: what the builder learned that the report does not list.
    init(_ report: Report, deviceNames: Set<String> = [], addresses: Set<String> = []) {
        path = (report.file, report.file.split(separator: "/").last.map(String.init) ?? report.file)
        for a in report.appLogs {
            let name = a.source.split(separator: "/").last.map(String.init) ?? a.source
            if name != a.source, logPaths.count < Self.searched { logPaths.append((a.source, name)) }
        }
        let found =
            report.connections.compactMap(\.name) + report.advertisers.compactMap(\.name)
            + report.accessories.map(\.name)
        for n in found + deviceNames.sorted() where !n.isEmpty { _ = name(n) }
        nameForms.sort { $0.form.count > $1.form.count }
        for c in report.connections { if let a = c.address { _ = address(a) } }
        for a in report.advertisers { _ = address(a.address) }
        for a in addresses.sorted() { _ = address(a) }
        // Every address anywhere first, so hex dumps earlier in the report than an address's text are caught too.
        func scan(_ texts: [String]) {
            for t in texts where t.utf8.count >= 17 {
                for m in t.matches(of: pattern) { _ = address(String(t[m.range])) }
            }
        }
        scan(report.captureInformation + report.services.map(\.server))
        for row in report.rows { scan([row.text] + row.fields.map(\.1) + (row.log.map { [$0.message] } ?? [])) }
        scan(report.diagnostics.map(\.firstMessage))
        for (i, a) in report.accessories.enumerated() where !a.serial.isEmpty {
            serials.append((a.serial, "[serial \(i + 1)]"))
            bytes.add(Array(a.serial.utf8), "[serial \(i + 1)]")
        }
    }

    func apply(_ r: inout Report) {
        r.file = path.name
        r.captureInformation = r.captureInformation.map(text)
        // A filter may name an address or a serial number.
        r.filter = r.filter.map(text)
        r.connections.redaction = { c in
            c.address = c.address.map(self.text)
            c.name = c.name.map(self.name)
            c.steps = c.steps.map(self.text)
        }
        for i in r.advertisers.indices {
            r.advertisers[i].address = text(r.advertisers[i].address)
            r.advertisers[i].name = r.advertisers[i].name.map(name)
        }
        for i in r.accessories.indices {
            r.accessories[i].serial = text(r.accessories[i].serial)
            r.accessories[i].name = name(r.accessories[i].name)
            r.accessories[i].model = text(r.accessories[i].model)
            r.accessories[i].manufacturer = text(r.accessories[i].manufacturer)
        }
        for i in r.services.indices { r.services[i].server = text(r.services[i].server) }
        r.rows.rewrite { row in
            row.text = text(row.text)
            row.fields = row.fields.map { ($0.0, text($0.1)) }
            // A dump no placeholder changed stays bytes.
            if let hex = row.hex, case let redacted = text(hex), redacted != hex { row.hex = redacted }
            if var l = row.log {
                (l.source, l.message) = (text(l.source), text(l.message))
                (l.tag, l.level) = (l.tag.map(text), l.level.map(text))
                row.log = l
            }
        }
        for i in r.appLogs.indices { r.appLogs[i].source = text(r.appLogs[i].source) }
        for i in r.messages.indices {
            r.messages[i].detail = text(r.messages[i].detail)
            r.messages[i].label = text(r.messages[i].label)
            if var l = r.messages[i].log {
                (l.source, l.message) = (text(l.source), text(l.message))
                r.messages[i].log = l
            }
        }
        for i in r.diagnostics.indices { r.diagnostics[i].firstMessage = text(r.diagnostics[i].firstMessage) }
        r.redacted = true
    }

    /// The input's path, known names, addresses and serials as hex, known device names, any known
    /// serial, and any `AA:BB:CC:DD:EE:FF` in `s`.
    func text(_ s: String) -> String {
        var out = bytes.scrub(s)
        if path.full != path.name { out = out.replacingOccurrences(of: path.full, with: path.name) }
        for p in logPaths { out = out.replacingOccurrences(of: p.full, with: p.name) }
        for (form, placeholder) in nameForms where out.contains(form) {
            out = out.replacingOccurrences(of: form, with: placeholder)
        }
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

    /// Names and addresses searched for inside other text (hex dumps, messages): each is looked for in
    /// every string of the report, so a hostile capture's thousands of them must not make that
    /// quadratic. Past it a name is still replaced where it is a name, an address wherever it is
    /// written as one.
    static let searched = 256

    /// The forms looked for in every string: what the bound above keeps small.
    var searchedForms: Int { nameForms.count + bytes.count }

    /// A device name's placeholder. Names of 3 characters or more are also replaced inside other
    /// text, and of 4 bytes or more inside hex dumps: a shorter one would match by chance.
    private func name(_ n: String) -> String {
        if let p = names[n] { return p }
        let p = "[name \(names.count + 1)]"
        names[n] = p
        guard names.count <= Self.searched else { return p }
        if n.count >= 3 {
            nameForms.append((n, p))
            if TerminalText.safe(n) != n { nameForms.append((TerminalText.safe(n), p)) }
        }
        bytes.add(Array(n.utf8), p)
        return p
    }

    private func address(_ a: String) -> String {
        let key = a.uppercased()
        if let p = addresses[key] { return p }
        let p = "[address \(addresses.count + 1)]"
        addresses[key] = p
        guard addresses.count <= Self.searched else { return p }
        let octets = key.split(separator: ":").compactMap { UInt8($0, radix: 16) }
        // In display and wire (reversed) order.
        bytes.add(octets, p)
        bytes.add(octets.reversed(), p)
        return p
    }
}
