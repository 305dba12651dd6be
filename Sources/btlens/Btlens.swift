import ArgumentParser
import BTLensCapture

struct Btlens: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "btlens",
        abstract: "Annotated timelines of what a phone app and its Bluetooth accessory said to each other.",
        discussion: """
        Reads Bluetooth HCI captures (btsnoop, PacketLogger, pcap/pcapng, Android btsnooz; see `btlens formats`) and decodes HCI → ACL → L2CAP → ATT/GATT or RFCOMM → iAP2 → A5 frames, with diagnostics for what does not add up. Vendor commands are named by dissectors: definition files in ./Dissectors or ~/.config/btlens/dissectors (see `btlens dissectors`). The format is recognised by content, never by file name. `btlens FILE` is `btlens timeline FILE`.

        EXIT STATUS
          0  the input was read as a capture (diagnostics may have been reported)
          1  the input could not be read as a capture
          (not a capture, unreadable, unsupported)
          2  usage error, or a dissector definition that does not load
        """,
        version: "0.1.0 (libpcap: \(Libpcap.version))",
        subcommands: [Timeline.self, Follow.self, Stats.self, ReportCommand.self, Convert.self, Interfaces.self, Dissectors.self, Formats.self, DiagnosticsList.self],
        defaultSubcommand: Timeline.self)
}
