import CPcap

/// The libpcap btlens is linked against (pcap and pcapng files are read through it).
public enum Libpcap {
    public static var version: String { String(cString: pcap_lib_version()) }
}
