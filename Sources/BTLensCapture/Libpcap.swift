import CPcap

/// The libpcap btlens is linked against (pcap and pcapng files are read through it).
public enum Libpcap {
    public static var version: String { String(cString: pcap_lib_version()) }

    /// Interfaces libpcap can capture from, with their description: Bluetooth ones first.
    public static func interfaces() throws(CaptureOpenError) -> [(name: String, detail: String, bluetooth: Bool)] {
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        var list: UnsafeMutablePointer<pcap_if_t>?
        guard pcap_findalldevs(&list, &errbuf) == 0 else {
            throw .cannotOpen(
                path: "interfaces",
                reason: String(decoding: errbuf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { pcap_freealldevs(list) }
        var out: [(String, String, Bool)] = []
        var node = list
        while let n = node {
            let name = String(cString: n.pointee.name)
            let detail = n.pointee.description.map { String(cString: $0) } ?? ""
            out.append((name, detail, name.hasPrefix("bluetooth")))
            node = n.pointee.next
        }
        return out.sorted { ($0.2 ? 0 : 1, $0.0) < ($1.2 ? 0 : 1, $1.0) }
    }
}
